// Package tty tells whether a file is a terminal, as isatty does: whether the system gives the
// file's terminal settings, which it does for a terminal or a pseudo-terminal and refuses for any
// other file, the null device included.
//
// On Unix systems that is an ioctl, whose argument is a pointer and so takes unsafe code. Built
// with the purego tag, the check is its safe twin (IsTerminalSafe), which reads the file's device
// instead: on Linux, a character device of the terminal majors; elsewhere, any character device
// but the null device, erring towards a terminal. Windows asks for the console mode, which takes
// no unsafe code.
package tty
