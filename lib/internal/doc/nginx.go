package doc

import (
	"fmt"
	"strings"
)

// nginxKinds are the variables whose values are checked or read
// specially; every other $variable is Text.
var nginxKinds = map[string]Part{
	"status":              {Kind: Status},
	"body_bytes_sent":     {Kind: Size},
	"bytes_sent":          {Kind: Size},
	"request_length":      {Kind: Size},
	"connection_requests": {Kind: Size},
	"request_time":        {Kind: Numeric},
	// Ports: numbers, so that "$remote_addr:$remote_port" reads an IPv6
	// address whole (Part.Addr).
	"remote_port": {Kind: Numeric}, "server_port": {Kind: Numeric}, "realip_remote_port": {Kind: Numeric},
	"proxy_protocol_port": {Kind: Numeric}, "proxy_protocol_server_port": {Kind: Numeric},
	"request":      {Kind: Request},
	"time_local":   {Kind: Stamp, Layout: LayoutCLF},
	"time_iso8601": {Kind: Stamp, Layout: LayoutRFC3339},
	"msec":         {Kind: Stamp, Layout: LayoutUnix},
}

// upstreamNumbers are nginx's $upstream_* variables whose values are
// numbers; the others ($upstream_addr, $upstream_cache_status,
// $upstream_http_NAME, ...) are text.
var upstreamNumbers = map[string]bool{
	"upstream_bytes_received": true, "upstream_bytes_sent": true, "upstream_connect_time": true,
	"upstream_header_time": true, "upstream_queue_time": true, "upstream_response_length": true,
	"upstream_response_time": true, "upstream_status": true,
}

// parseNginx reads an nginx log_format string into elements: $name or
// ${name} is the field name, everything else literal. Every $upstream_*
// variable is a list: nginx writes one value per upstream tried, ", "
// between them and " : " across an internal redirect, "-" for one that
// gave none; a List of numbers (upstreamNumbers), else a TextList.
func parseNginx(src string) ([]element, error) {
	var elems []element
	for i := 0; i < len(src); {
		if src[i] != '$' {
			var lit element
			lit, i = literalUpTo(src, i, '$')
			elems = append(elems, lit)
			continue
		}
		start := i
		i++
		braced := i < len(src) && src[i] == '{'
		if braced {
			i++
		}
		j := i
		for j < len(src) && (isLetter(src[j]) || isDigit(src[j])) {
			j++
		}
		name := src[i:j]
		if braced {
			if j == len(src) || src[j] != '}' {
				return nil, fmt.Errorf("%s has no closing }", src[start:])
			}
			j++
		}
		if name == "" {
			return nil, fmt.Errorf("a $ at %q is not followed by a variable name", src[start:])
		}
		i = j
		p, ok := nginxKinds[name]
		if !ok && strings.HasPrefix(name, "upstream_") {
			p.Kind = TextList
			if upstreamNumbers[name] {
				p.Kind = List
			}
		}
		p.Field = name
		elems = append(elems, element{part: p})
	}
	return elems, nil
}

// formatLine parses "format apache STRING" and "format nginx
// [escape=default|json|none] STRING…"; ok is false for any other format line.
func (p *parser) serverFormat(n int, line string) (bool, error) {
	rest, ok := cutWord(strings.TrimLeft(line, " \t"), "format")
	if !ok {
		return false, nil
	}
	rest = strings.TrimLeft(rest, " \t")
	server := ""
	for _, s := range []string{"apache", "nginx"} {
		if r, ok := cutWord(rest, s); ok {
			server, rest = s, r
		}
	}
	if server == "" {
		return false, nil
	}
	if err := p.once(n, "format", &p.formatLine); err != nil {
		return true, err
	}
	rest = strings.TrimLeft(rest, " \t")
	if server == "nginx" {
		if r, ok := strings.CutPrefix(rest, "escape="); ok {
			word, after, _ := strings.Cut(r, " ")
			if word != "default" && word != "json" && word != "none" {
				return true, p.errorf(n, "escape=%s is not nginx's; want escape=default, escape=json or escape=none", word)
			}
			rest = after
		}
	}
	rest = rest[:afterQuotes(rest)] + stripComment(rest[afterQuotes(rest):])
	nick := apacheNicknames
	if server == "nginx" {
		nick = nginxNicknames
	}
	src, err := quotedStrings(rest, nick)
	if err != nil {
		return true, p.errorf(n, "%v; %s", err, exampleWant(server))
	}
	var elems []element
	if server == "nginx" {
		elems, err = parseNginx(src)
	} else {
		elems, err = parseApache(src)
	}
	if err == nil {
		p.d.LogFormat, err = compileLogFormat(server, src, elems)
	}
	if err != nil {
		return true, p.errorf(n, "%v", err)
	}
	p.d.Format = Apache
	p.d.LogFormat.Vocab = apacheVocab(p.d.LogFormat)
	if server == "nginx" {
		p.d.Format = Nginx
		p.d.LogFormat.Vocab = nginxVocab(p.d.LogFormat)
	}
	return true, nil
}

func exampleWant(server string) string {
	return fmt.Sprintf(`"format %s" wants the string from the server's config, quoted, e.g. %s`, server, exampleFormat(server))
}
