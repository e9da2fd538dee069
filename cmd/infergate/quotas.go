package main

import (
	"bytes"
	"encoding/json"
	"os"
	"time"

	infergate "github.com/infergate/infergate-go"
)

// quotasFile is the form of batch --quotas: the quotas of a key, as infergate.Quotas holds them,
// in snake_case and with windows written as durations ("1m").
//
//	{"groups": [{"name": "L", "models": ["glm-5.1", "kimi-k2.6"], "requests": 20, "tokens": 500000}],
//	 "default": {"requests": 60, "tokens": 100000, "window": "1m"}}
type quotasFile struct {
	Groups []struct {
		Name   string   `json:"name"`
		Models []string `json:"models"`
		quotaFile
	} `json:"groups"`
	Default quotaFile `json:"default"`
}

type quotaFile struct {
	Requests   int    `json:"requests"`
	Tokens     int    `json:"tokens"`
	Concurrent int    `json:"concurrent"`
	Window     string `json:"window"` // a Go duration; "" is a minute
}

func (q quotaFile) quota() (infergate.Quota, error) {
	out := infergate.Quota{Requests: q.Requests, Tokens: q.Tokens, Concurrent: q.Concurrent}
	if q.Window != "" {
		w, err := time.ParseDuration(q.Window)
		if err != nil {
			return out, err
		}
		out.Window = w
	}
	return out, nil
}

// readQuotas reads the file of --quotas; a file that cannot be read or holds quotas the SDK refuses
// is a wrong command line.
func readQuotas(path string) (infergate.Quotas, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return infergate.Quotas{}, usagef("--quotas: %v", err)
	}
	var file quotasFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return infergate.Quotas{}, usagef("--quotas %s: %v", path, err)
	}
	var q infergate.Quotas
	if q.Default, err = file.Default.quota(); err != nil {
		return q, usagef("--quotas %s: default: %v", path, err)
	}
	for _, g := range file.Groups {
		quota, err := g.quota()
		if err != nil {
			return q, usagef("--quotas %s: group %q: %v", path, g.Name, err)
		}
		q.Groups = append(q.Groups, infergate.QuotaGroup{Name: g.Name, Models: g.Models, Quota: quota})
	}
	if err := q.Validate(); err != nil {
		return q, fromCommandLine(err, map[string]string{"Quotas": "--quotas " + path})
	}
	return q, nil
}
