package main

import "syscall"

// getTermios is the ioctl request that reads a terminal's settings.
const getTermios = syscall.TCGETS
