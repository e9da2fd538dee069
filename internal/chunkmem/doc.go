// Package chunkmem is the memory a stream's chunks are cut from: lists of choices and tool-call
// fragments cut from shared blocks, strings cut from text blocks, and the memo that lets a chunk
// keep the strings it shares with the last one without comparing them.
//
// What it promises: every list it hands out is capped, so that appending to it copies rather than
// writes into the next list; a string it hands out never changes; a list handed out is never handed
// out again, except by a transient Lists, whose caller keeps no chunk past the next one. Its one
// use of unsafe is the memo's comparison of a string with the one it remembered, by address and
// length first (Equal); the purego build tag selects its safe twin, which compares them by value.
package chunkmem
