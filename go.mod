module github.com/infergate/infergate-go

go 1.24
