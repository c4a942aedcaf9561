package merchant

import (
	"context"
	"fmt"
	"regexp"
)

// fGroup holds the account's merchant group; absent, none.
const fGroup = "group"

var groupPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// SetGroup puts merchant appid in group ("" takes it out of any): the
// channels that serve a group serve it from the next routing on. Audited
// like every Store change (Store.Audited).
func (s *Store) SetGroup(ctx context.Context, appid, group string) (*Account, error) {
	if group != "" && !groupPattern.MatchString(group) {
		return nil, fmt.Errorf("group %q: use 1 to 32 of a-z, 0-9, '_' and '-', starting with a letter or digit", group)
	}
	return s.update(ctx, appid, map[string]any{fGroup: group})
}
