//go:build !unix

package otelinfergate_test

import "time"

// processTime is the wall clock where the platform does not tell the process's CPU time.
func processTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
