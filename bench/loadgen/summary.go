package main

import (
	"math"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
)

// summarize gives count, mean and nearest-rank percentiles of millisecond values.
func summarize(values []float64) map[string]any {
	if len(values) == 0 {
		return map[string]any{"count": 0}
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	sum := 0.0
	for _, v := range sorted {
		sum += v
	}
	rank := func(p float64) float64 {
		i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
		return sorted[max(0, min(i, len(sorted)-1))]
	}
	return map[string]any{
		"count": len(sorted),
		"mean":  round3(sum / float64(len(sorted))),
		"p50":   rank(50),
		"p90":   rank(90),
		"p99":   rank(99),
		"max":   sorted[len(sorted)-1],
	}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// startProfile writes a CPU profile until the returned function is called.
func startProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		})
	}, nil
}
