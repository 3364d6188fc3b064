module sdkharness

go 1.23

require (
	github.com/MartianPay/martianpay-go-sample v0.0.0
	github.com/shopspring/decimal v1.4.0
)

require github.com/dchest/uniuri v1.2.0 // indirect

replace (
	github.com/MartianPay/martianpay-go-sample => ./sdk
	github.com/dchest/uniuri => ./stub/uniuri
	github.com/shopspring/decimal => /usr/share/gocode/src/github.com/shopspring/decimal
	github.com/stretchr/testify => ./stub/testify
)
