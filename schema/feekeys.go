package schema

// The operator's fee schedules live on the {merchants} hash tag, beside the
// accounts: an override's merchant is checked, the schedule written, the
// version bumped and the audit entry appended in one script, which Redis
// Cluster only runs on keys of one slot. They are few and cached by every
// process (fees.Resolver), so the slot carries them easily.

// FeesKey is the hash of every fee schedule: field FeeField, value
// FeeSchedule.String.
const FeesKey = "gw:{merchants}:fees"

// FeesVersionKey is bumped on every fee change; gateway processes poll it
// to reload their copy within a second.
const FeesVersionKey = "gw:{merchants}:fees:version"

// FeeDefault is the appid part of an operator default's field: no appid
// is ever "*".
const FeeDefault = "*"

// FeeField is the FeesKey field of appid's schedule for method m in
// currency cur; appid "" (or FeeDefault) is the operator default.
func FeeField(appid string, m Method, cur string) string {
	if appid == "" {
		appid = FeeDefault
	}
	return appid + ":" + string(m) + ":" + cur
}
