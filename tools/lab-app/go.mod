module mock-istiod.local/lab-app

go 1.21
