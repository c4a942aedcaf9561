module github.com/paygate/gateway/sdk/go

go 1.23
