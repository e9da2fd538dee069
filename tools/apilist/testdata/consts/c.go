package consts

import "time"

// Version is not API.
const Version = "1.2.3"

// Kind is an enum.
type Kind int

// The kinds.
const (
	KindA Kind = iota
	KindB
	kindC
	KindD
)

// Mode is a string enum.
type Mode string

// The modes.
const (
	ModeFast Mode = "fast"
	ModeSlow Mode = "slow"
)

// Loose constants.
const (
	Max        = 10
	Min        = -3
	Ratio      = 0.5
	Letter     = 'x'
	On         = true
	Wait       = 5 * time.Second
	Big, Small = 100, 1
	unexported = 1
)
