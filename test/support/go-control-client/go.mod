module mockistiod.test/gocontrolclient

go 1.21
