package access

import (
	"testing"
)

// TestPermissionTable: the roles as docs/consoles.md describes them, as
// checks on the table: the owner does everything, a viewer only reads, only the admin
// reviews USDT, an auditor writes nothing; no role reaches the other realm.
func TestPermissionTable(t *testing.T) {
	writes := map[Realm][]Permission{
		RealmMerchant: {PermOrdersRefund, PermOrdersCancel, PermExport, PermWebhooksResend, PermKeysRotate, PermSettingsWrite, PermSandboxDrive, PermUsersManage},
		RealmOperator: {PermMerchantsWrite, PermUSDTReview, PermExceptionsHandle, PermOpWebhooksResend, PermOpRefund, PermFXWrite, PermNetworksWrite, PermOperatorsManage, PermConsoleUsersWrite, PermFeesWrite, PermChannelsWrite,
			PermOpPayoutsDecide,
			PermOpReconImport},
	}
	tests := []struct {
		role    Role
		realm   Realm
		allowed []Permission
		refused []Permission
	}{
		{RoleOwner, RealmMerchant, append(writes[RealmMerchant], PermAuditRead, PermOrdersRead), writes[RealmOperator]},
		{RoleDeveloper, RealmMerchant, []Permission{PermKeysRotate, PermWebhooksResend, PermSettingsWrite, PermSandboxDrive}, []Permission{PermOrdersRefund, PermExport, PermUsersManage, PermAuditRead}},
		{RoleFinance, RealmMerchant, []Permission{PermOrdersRefund, PermExport, PermReportsRead, PermBalanceRead}, []Permission{PermKeysRotate, PermUsersManage, PermSettingsWrite}},
		{RoleViewer, RealmMerchant, []Permission{PermOrdersRead, PermReportsRead}, writes[RealmMerchant]},
		{RoleAdmin, RealmOperator, append(writes[RealmOperator], PermOpAuditRead), writes[RealmMerchant]},
		{RoleSupport, RealmOperator, []Permission{PermOpWebhooksResend, PermExceptionsHandle, PermMerchantsRead, PermOpPayoutsRead, PermOpReconRead}, []Permission{PermUSDTReview, PermMerchantsWrite, PermFXWrite, PermOperatorsManage, PermFeesWrite, PermChannelsWrite, PermOpPayoutsDecide, PermOpReconImport}},
		{RoleAuditor, RealmOperator, []Permission{PermOpAuditRead, PermMerchantsRead, PermOpPayoutsRead, PermOpReconRead}, writes[RealmOperator]},
		{"intruder", RealmMerchant, nil, []Permission{PermOrdersRead}},
	}
	for _, tt := range tests {
		t.Run(string(tt.role), func(t *testing.T) {
			s := &Session{Realm: tt.realm, Role: tt.role}
			for _, p := range tt.allowed {
				if !Can(s, tt.realm, p) {
					t.Errorf("%s may not %s", tt.role, p)
				}
			}
			for _, p := range tt.refused {
				if Can(s, tt.realm, p) || Allowed(tt.role, p) && realmOf[tt.role] != tt.realm {
					t.Errorf("%s may %s", tt.role, p)
				}
			}
			other := RealmOperator
			if tt.realm == RealmOperator {
				other = RealmMerchant
			}
			for _, p := range Permissions(tt.role) {
				if Can(s, other, p) {
					t.Errorf("%s's session may %s in the %s console", tt.role, p, other)
				}
			}
		})
	}
	if Can(nil, RealmMerchant, PermOrdersRead) {
		t.Error("no session may read")
	}
}

// TestConfigValidate: the defaults pass; nonsense is refused.
func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Config)
		ok   bool
	}{
		{"defaults", func(*Config) {}, true},
		{"idle under a minute", func(c *Config) { c.IdleTimeout = 1e9 }, false},
		{"absolute below idle", func(c *Config) { c.AbsoluteTimeout = c.IdleTimeout / 2 }, false},
		{"no limit", func(c *Config) { c.PerIP.Burst = 0 }, false},
		{"no recovery codes", func(c *Config) { c.RecoveryCodes = 0 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Defaults()
			tt.mod(&c)
			if err := c.Validate(); (err == nil) != tt.ok {
				t.Fatalf("err %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// TestActorCan: an actor may do what its role grants in its own realm and
// nothing elsewhere; the CLI and nobody (no session) may do nothing a
// console permission guards.
func TestActorCan(t *testing.T) {
	owner := Actor{ID: "u1", Realm: string(RealmMerchant), Role: RoleOwner, AppID: "1001", Source: "198.51.100.7"}
	tests := []struct {
		name  string
		actor Actor
		realm Realm
		p     Permission
		want  bool
	}{
		{"owner rotates keys", owner, RealmMerchant, PermKeysRotate, true},
		{"viewer may not rotate", Actor{Realm: string(RealmMerchant), Role: RoleViewer}, RealmMerchant, PermKeysRotate, false},
		{"owner in the operator console", owner, RealmOperator, PermMerchantsRead, false},
		{"admin in the merchant console", Actor{Realm: string(RealmOperator), Role: RoleAdmin}, RealmMerchant, PermOrdersRead, false},
		{"operator role claiming the merchant realm", Actor{Realm: string(RealmMerchant), Role: RoleAdmin}, RealmMerchant, PermUSDTReview, false},
		{"the CLI", CLI(), RealmMerchant, PermOrdersRead, false},
		{"nobody", ActorOf(nil, "198.51.100.9"), RealmMerchant, PermOrdersRead, false},
		{"no realm asked", owner, "", PermOrdersRead, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.actor.Can(tt.realm, tt.p); got != tt.want {
				t.Fatalf("Can %v, want %v", got, tt.want)
			}
		})
	}
}
