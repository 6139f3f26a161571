module github.com/conformsuite/conform

go 1.24

require (
	github.com/go-python/gpython v0.2.0
	github.com/google/go-cmp v0.7.0
	github.com/sbinet/npyio v0.6.0
	golang.org/x/sys v0.0.0-20220817070843-5a390386f1f2
	pgregory.net/rapid v1.3.0
)

require gonum.org/v1/gonum v0.9.3 // indirect
