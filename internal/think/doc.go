// Package think takes reasoning that a model writes into its answer's text, between "<think>" and
// "</think>", out of that text.
//
// What it promises: a Splitter reads text in pieces cut anywhere, between the bytes of a character
// too, and gives the same reasoning and content, joined, as Split gives for the whole text; it never
// panics. Nothing is lost but the tags and the white space around them: the reasoning is the text
// between an opening tag at the start (past white space) and the first closing tag, or, when the
// text does not open with the tag, all the text before the first closing tag; a tag never closed
// keeps what follows it as reasoning. What a piece makes known comes back as pieces of it, without
// copies; only text held across pieces (a tag cut between them, text whose place a later closing tag
// decides) is copied, and Holding reports it.
package think
