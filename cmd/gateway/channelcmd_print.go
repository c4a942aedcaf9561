package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/operator"
)

// channelRow is one channel as `channel list` and `show` print it.
type channelRow struct {
	Channel     string `json:"channel"`
	Mode        string `json:"mode,omitempty"` // the method's ranking (list)
	State       string `json:"state"`
	Reason      string `json:"reason,omitempty"`
	Since       string `json:"since,omitempty"`
	By          string `json:"by,omitempty"`
	Enabled     bool   `json:"enabled"`
	Maintenance bool   `json:"maintenance"`
	Configured  bool   `json:"configured"`
	Weight      int    `json:"weight"`
	Priority    int    `json:"priority"`
	Settings    string `json:"settings"`
	DailyCount  int64  `json:"dailyCount,omitempty"`
	DailyAmount string `json:"dailyAmount,omitempty"`
	Day         string `json:"day"`
	UsedCount   int64  `json:"usedCount"`
	UsedAmount  string `json:"usedAmount"`
	PaidCount   int64  `json:"paidCount"`
	PaidAmount  string `json:"paidAmount"`
	SuccessRate int    `json:"successRate"` // per cent over the last minutes; -1: no attempts
	Attempts    int64  `json:"attempts"`
}

func channelRowOf(mode channel.Mode, cv operator.ChannelView) channelRow {
	s, b := cv.Settings, cv.Breaker
	r := channelRow{Channel: cv.Ref.String(), Mode: string(mode), State: string(b.State), Reason: b.Reason, By: b.By,
		Enabled: !s.Disabled, Maintenance: s.Maintenance, Configured: cv.Configured, Weight: max(s.Weight, 1), Priority: s.Priority,
		Settings: operator.DescribeSettings(s), DailyCount: s.DailyCount, Day: cv.Day, UsedCount: cv.Used.Count, UsedAmount: cv.Used.Amount.String(),
		PaidCount: cv.PaidCount, PaidAmount: cv.PaidAmount.String(), SuccessRate: cv.Attempts.Rate(), Attempts: cv.Attempts.OK + cv.Attempts.Fail}
	if s.DailyAmount > 0 {
		r.DailyAmount = s.DailyAmount.String()
	}
	if r.State == "" {
		r.State = string(channel.Closed)
	}
	if !b.Since.IsZero() {
		r.Since = b.Since.UTC().Format(time.RFC3339)
	}
	return r
}

func printChannels(out output, v *operator.ChannelsView) error {
	var rows []channelRow
	for _, m := range v.Methods {
		for _, cv := range m.Channels {
			rows = append(rows, channelRowOf(m.Mode, cv))
		}
	}
	if out.json {
		return out.value(map[string]any{"channels": nonNil(rows), "keywords": nonNil(v.Keywords), "pins": nonNil(v.Pins)})
	}
	if len(rows) == 0 {
		return noRows(out.w, "channels", "")
	}
	tw := tabwriter.NewWriter(out.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANNEL\tMODE\tSTATE\tENABLED\tWEIGHT\tPRIO\tCAPS\tTODAY\tRATE\tNOTE")
	for _, r := range rows {
		enabled := "yes"
		if !r.Enabled {
			enabled = "no"
		}
		if r.Maintenance {
			enabled += ", maintenance"
		}
		rate := "-"
		if r.SuccessRate >= 0 {
			rate = fmt.Sprintf("%d%% of %d", r.SuccessRate, r.Attempts)
		}
		note := r.Reason
		if !r.Configured {
			note = strings.TrimSuffix("not configured; "+note, "; ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%d / %s\t%s\t%s\n", r.Channel, r.Mode, r.State, enabled, r.Weight, r.Priority,
			caps(r), r.UsedCount, r.UsedAmount, rate, note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out.w, "keywords: %d\n", len(v.Keywords))
	for _, p := range v.Pins {
		fmt.Fprintf(out.w, "pin %s %s: %v\n", p.AppID, p.Method, p.IDs)
	}
	return nil
}

// caps is a row's daily caps, "-" for none.
func caps(r channelRow) string {
	switch {
	case r.DailyCount > 0 && r.DailyAmount != "":
		return fmt.Sprintf("%d / %s", r.DailyCount, r.DailyAmount)
	case r.DailyCount > 0:
		return fmt.Sprintf("%d / -", r.DailyCount)
	case r.DailyAmount != "":
		return "- / " + r.DailyAmount
	}
	return "-"
}
