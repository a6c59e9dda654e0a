package asset

import (
	"context"
	"fmt"
)

// Stats counts what a [FileStore] holds, for harnish assets stats.
type Stats struct {
	// Total counts the assets queries return.
	Total int
	// ByType and ByTag count them by type and by tag (lower case).
	ByType map[Type]int
	ByTag  map[string]int
	// Summaries counts the summary records among them (see
	// [Asset.SummaryOf]).
	Summaries int
	// Compressed counts the records compressed away: those the summaries
	// fold, plus records in the file the engine marked compressed.
	Compressed int
}

// Stats returns the counts of the store as it is now, having read what
// other stores appended. It reads the index only, not the archive.
func (s *FileStore) Stats(ctx context.Context) (Stats, error) {
	if err := ctx.Err(); err != nil {
		return Stats{}, fmt.Errorf("asset: stats: %w", context.Cause(ctx))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.catchUp(false); err != nil {
		return Stats{}, err
	}
	st := Stats{ByType: map[Type]int{}, ByTag: map[string]int{}}
	for i, m := range s.idx.meta {
		if m.hidden {
			st.Compressed++
			continue
		}
		st.Total++
		st.ByType[m.typ]++
		for _, t := range s.idx.tags[i] {
			st.ByTag[t]++
		}
		if m.summary {
			st.Summaries++
			st.Compressed += m.of
		}
	}
	return st, nil
}
