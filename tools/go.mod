module github.com/infergate/infergate-go/tools

go 1.25
