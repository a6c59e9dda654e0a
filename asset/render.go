package asset

import (
	"strings"
	"unicode/utf8"
)

// TruncatedMarker ends the text of an asset [Render] cut short.
const TruncatedMarker = "\n[… truncated]"

// Render returns the text of each asset for a prompt, in order:
//
//	### TITLE
//	type: TYPE; tags: TAG, TAG
//	BODY
//
// It stops before the total length of the texts would exceed maxBytes: the
// asset that does not fit whole is cut at a UTF-8 boundary and ends in
// [TruncatedMarker], if its first two lines and the marker fit, and is the
// last; otherwise it and those after it are left out. The caller joins the
// texts as it likes; the separators are not counted. A maxBytes of zero or
// less means no limit. The loop renders the result of its query with the
// part of the prompt's budget it gives to experience.
func Render(as []*Asset, maxBytes int) []string {
	var out []string
	left := maxBytes
	for _, a := range as {
		head := "### " + a.Title + "\ntype: " + string(a.Type)
		if len(a.Tags) > 0 {
			head += "; tags: " + strings.Join(a.Tags, ", ")
		}
		text := head
		if a.Body != "" {
			text += "\n" + strings.TrimRight(a.Body, "\n")
		}
		if maxBytes <= 0 || len(text) <= left {
			out = append(out, text)
			left -= len(text)
			continue
		}
		if len(head)+len(TruncatedMarker) <= left {
			cut := left - len(TruncatedMarker)
			for cut > len(head) && !utf8.RuneStart(text[cut]) {
				cut--
			}
			out = append(out, text[:cut]+TruncatedMarker)
		}
		break
	}
	return out
}
