// Package chunkmem is the memory a stream's chunks are cut from: lists of choices and tool-call
// fragments cut from shared blocks, strings cut from text blocks, and the memo that lets a chunk
// keep the strings it shares with the last one without comparing them.
//
// What it promises: every list it hands out is capped, so that appending to it copies rather than
// writes into the next list; a string it hands out never changes; a list handed out is never handed
// out again, except by a transient Lists, whose caller keeps no chunk past the next one.
//
// It uses unsafe twice, each with a safe twin that the purego build tag selects and a fuzz target
// holds it to: Equal compares two strings by address and length before their bytes (the twin by
// value), and Builder hands out the strings of its text without a copy and appends without storing
// a pointer, which costs a write barrier while the collector marks (the twin is strings.Builder).
package chunkmem
