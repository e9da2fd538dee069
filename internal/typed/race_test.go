//go:build race

package typed

// raceEnabled is true when the tests run with the race detector, which makes each memory access
// several times dearer: tests whose point is volume, not concurrency, scale down (see scaled).
const raceEnabled = true
