package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	infergate "github.com/infergate/infergate-go"
)

// transcriptionFormats maps --format to what is asked of the gateway: json asks for the richest
// answer, verbose_json, and prints it as received.
var transcriptionFormats = map[string]infergate.TranscriptionFormat{
	"text": infergate.TranscriptionFormatText, "srt": infergate.TranscriptionFormatSRT,
	"vtt": infergate.TranscriptionFormatVTT, "json": infergate.TranscriptionFormatVerboseJSON,
}

func (a *app) transcribe(ctx context.Context, args []string) error {
	f := a.newFlags("transcribe")
	format := f.String("format", "", "text, srt, vtt or json (the whole answer, with segments); default the -o file's extension (.txt, .srt, .vtt, .json), else text")
	out := f.String("o", "", "write the transcript to this file instead of stdout")
	model := f.String("m", "", "the transcription model (default: the gateway's choice)")
	language := f.String("language", "", "the spoken language, such as en (default: detected)")
	rest, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	switch {
	case f.json:
		*format = "json"
	case *format == "":
		*format = transcriptFormatOf(*out)
	}
	asked, ok := transcriptionFormats[*format]
	if !ok {
		return usagef("--format %q is not one of text, srt, vtt, json", *format)
	}
	req := infergate.TranscriptionRequest{Model: *model, Language: *language, ResponseFormat: asked}
	source := rest[0]
	if strings.HasPrefix(source, "https://") || strings.HasPrefix(source, "http://") {
		req.S3PresignedURL = source
	} else {
		file, err := os.Open(source)
		if err != nil {
			return err
		}
		defer file.Close()
		req.File, req.FileName = file, filepath.Base(source)
	}
	client, stop, err := a.connect(f)
	if err != nil {
		return err
	}
	defer stop()
	var bar *uploadBar
	if req.File != nil && a.term.err {
		bar = &uploadBar{w: a.stderr, name: req.FileName, now: a.now}
		req.Progress = bar.update
	}
	t, err := client.Audio.Transcribe(ctx, req)
	if bar != nil {
		bar.done()
	}
	if err != nil {
		return aboutFile(source, err)
	}
	return a.output(*out, func(w io.Writer) error {
		if *format == "json" {
			return writeJSON(w, json.RawMessage(t.Raw))
		}
		text := t.Text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		_, err := io.WriteString(w, text)
		return err
	})
}

// fileError is an error about a file the user named: the SDK's checks name the request's field
// (File), which the user did not write, so the command puts the file's name before it.
type fileError struct {
	name string
	err  error
}

func (e *fileError) Error() string {
	return e.name + ": " + strings.TrimPrefix(e.err.Error(), "infergate: ")
}

func (e *fileError) Unwrap() error { return e.err }

// aboutFile names the file name in err when err is the SDK refusing the request's file.
func aboutFile(name string, err error) error {
	var invalid *infergate.ValidationError
	if errors.As(err, &invalid) && strings.HasPrefix(invalid.Field, "File") {
		return &fileError{name: name, err: err}
	}
	return err
}

// transcriptFormatOf is the --format a transcript written to path takes from its extension, as
// speak's audio does: text for stdout or an extension that names no format.
func transcriptFormatOf(path string) string {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if _, ok := transcriptionFormats[ext]; ok {
		return ext
	}
	return "text"
}

// output writes with write to the file path, or to stdout when path is empty.
func (a *app) output(path string, write func(io.Writer) error) error {
	if path == "" {
		return write(a.stdout)
	}
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(file); err != nil {
		file.Close()
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	fmt.Fprintln(a.stderr, "wrote", path)
	return nil
}

// speechFormats are the audio formats speak writes, by file extension.
var speechFormats = map[string]infergate.SpeechFormat{
	"mp3": infergate.SpeechFormatMP3, "opus": infergate.SpeechFormatOpus, "ogg": infergate.SpeechFormatOpus,
	"aac": infergate.SpeechFormatAAC, "flac": infergate.SpeechFormatFLAC, "wav": infergate.SpeechFormatWAV, "pcm": infergate.SpeechFormatPCM,
}

func (a *app) speak(ctx context.Context, args []string) error {
	f := a.newFlags("speak")
	out := f.String("o", "", "the audio file to write; its extension picks the format (mp3, opus, aac, flac, wav, pcm)")
	format := f.String("format", "", "the audio format when writing to stdout (default mp3)")
	voice := f.String("voice", "", "the voice (default "+infergate.DefaultVoice+")")
	model := f.String("m", "", "the text-to-speech model (default: the gateway's choice)")
	speed := f.Float64("speed", 1, "the speaking rate, 0.25 to 4")
	f.Lookup("json").Usage = "refused: speak writes audio, not JSON"
	rest, err := f.parse(args, 1, -1)
	if err != nil {
		return err
	}
	if f.json {
		return usagef("--json is not taken: speak writes audio (give -o FILE, or pipe stdout)")
	}
	req := infergate.SpeechRequest{Input: strings.Join(rest, " "), Model: *model, Voice: *voice}
	if *speed != 1 {
		req.Speed = speed
	}
	name := *format
	switch {
	case *out != "" && name == "":
		name = strings.TrimPrefix(strings.ToLower(filepath.Ext(*out)), ".")
	case *out == "" && a.term.out:
		return usagef("give -o FILE: audio is not written to a terminal")
	}
	if name != "" {
		var ok bool
		if req.ResponseFormat, ok = speechFormats[name]; !ok {
			return usagef("%q is not an audio format: mp3, opus, aac, flac, wav or pcm", name)
		}
	}
	if err := req.Validate(); err != nil {
		return fromCommandLine(err, map[string]string{"Input": "TEXT", "Speed": "--speed"})
	}
	client, stop, err := a.connect(f)
	if err != nil {
		return err
	}
	defer stop()
	if *out == "" {
		_, err := client.Audio.SpeakTo(ctx, exact(a.stdout), req)
		return err
	}
	if err := client.Audio.SpeakToFile(ctx, *out, req); err != nil {
		return err
	}
	info, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "wrote %s (%s)\n", *out, bytesText(info.Size()))
	return nil
}
