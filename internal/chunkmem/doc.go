// Package chunkmem is the memory a stream's chunks are cut from: lists of choices and tool-call
// fragments cut from shared blocks, strings cut from text blocks, and the memo that lets a chunk
// keep the strings it shares with the last one without comparing them.
//
// What it promises: every list it hands out is capped, so that appending to it copies rather than
// writes into the next list; a string it hands out never changes; a list handed out is never handed
// out again, except by a transient Lists, whose caller keeps no chunk past the next one. It uses no
// unsafe code: the memo compares addresses through ordinary pointers to bytes and strings by value,
// which the runtime settles by their address first.
package chunkmem
