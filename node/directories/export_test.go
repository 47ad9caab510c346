package directories

import "time"

// SetClock sets the clock of the once-an-Interval random eviction.
func (b *Book) SetClock(now func() time.Time) { b.now = now }
