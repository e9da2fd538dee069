package main

// Run is in a command.
func Run() {}

func main() {}
