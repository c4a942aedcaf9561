package access

import "slices"

// Realm is which console an account belongs to. A session of one realm is
// never accepted by the other's pages (Session.Realm, Can).
type Realm string

const (
	RealmMerchant Realm = "merchant"
	RealmOperator Realm = "operator"
)

// Role is an account's role within its realm.
type Role string

// Merchant console roles: the merchant's own people, each seeing and
// changing only what the role allows.
const (
	RoleOwner     Role = "owner"
	RoleDeveloper Role = "developer"
	RoleFinance   Role = "finance"
	RoleViewer    Role = "viewer"
)

// Operator roles: our own people on the operator console.
const (
	RoleAdmin   Role = "admin"
	RoleSupport Role = "support"
	RoleAuditor Role = "auditor"
)

// Permission is one thing a page may let a person do.
type Permission string

// Merchant console permissions.
const (
	PermOrdersRead     Permission = "orders.read"
	PermOrdersRefund   Permission = "orders.refund"
	PermOrdersCancel   Permission = "orders.cancel"
	PermExport         Permission = "reports.export"
	PermReportsRead    Permission = "reports.read"
	PermBalanceRead    Permission = "balance.read"
	PermWebhooksRead   Permission = "webhooks.read"
	PermWebhooksResend Permission = "webhooks.resend"
	PermKeysRotate     Permission = "keys.rotate"
	PermSettingsWrite  Permission = "settings.write"
	PermSandboxDrive   Permission = "sandbox.drive"
	PermUsersRead      Permission = "users.read"
	PermUsersManage    Permission = "users.manage" // invite, change role, remove, require TOTP
	PermAuditRead      Permission = "audit.read"
	// Payouts: every role reads them; owners and finance ask for them;
	// only owners (with a fresh TOTP code) add or remove destinations.
	PermPayoutsRead        Permission = "payouts.read"
	PermPayoutsRequest     Permission = "payouts.request"
	PermPayoutDestinations Permission = "payouts.destinations"
)

// Operator console permissions.
const (
	PermMerchantsRead     Permission = "merchants.read"
	PermMerchantsWrite    Permission = "merchants.write" // create, enable/disable, limits, credit
	PermMerchantConsole   Permission = "merchants.view_console"
	PermUSDTReview        Permission = "usdt.review" // approve or reject: admin only
	PermUSDTRead          Permission = "usdt.read"
	PermExceptionsRead    Permission = "exceptions.read"
	PermExceptionsHandle  Permission = "exceptions.handle"
	PermOpWebhooksResend  Permission = "op.webhooks.resend"
	PermOpRefund          Permission = "op.orders.refund"
	PermFXWrite           Permission = "fx.write"
	PermNetworksWrite     Permission = "networks.write"
	PermSettingsRead      Permission = "settings.read" // FX, networks, providers
	PermOperatorsManage   Permission = "operators.manage"
	PermConsoleUsersWrite Permission = "console_users.write"
	PermOpAuditRead       Permission = "op.audit.read"
	PermFeesWrite         Permission = "fees.write"         // operator fee schedules: set, clear
	PermFeeIncomeRead     Permission = "ledger.income.read" // the platform's fee income
	PermChannelsWrite     Permission = "channels.write"     // channels' routing data, modes, pins, keywords, breakers
	PermOpPayoutsRead     Permission = "op.payouts.read"    // the payouts' review and sending queues
	PermOpPayoutsDecide   Permission = "op.payouts.decide"  // approve, reject, record a bank payout's reference: admin only
	// Reconciliation: every operator reads the channels' receivables; only
	// the admin imports a provider's statement (it posts to the journal).
	PermOpReconRead   Permission = "op.recon.read"
	PermOpReconImport Permission = "op.recon.import"
)

var (
	merchantRead = []Permission{PermOrdersRead, PermReportsRead, PermBalanceRead, PermWebhooksRead, PermUsersRead, PermPayoutsRead}
	operatorRead = []Permission{PermMerchantsRead, PermUSDTRead, PermExceptionsRead, PermSettingsRead, PermOpAuditRead, PermMerchantConsole,
		PermFeeIncomeRead,
		PermOpPayoutsRead,
		PermOpReconRead}
)

// grants is the role → permission table: the one place that says who may do
// what. Pages ask Can; tests read the table.
var grants = map[Role][]Permission{
	RoleOwner: append(slices.Clone(merchantRead), PermOrdersRefund, PermOrdersCancel, PermExport, PermWebhooksResend,
		PermKeysRotate, PermSettingsWrite, PermSandboxDrive, PermUsersManage, PermAuditRead, PermPayoutsRequest, PermPayoutDestinations),
	RoleDeveloper: append(slices.Clone(merchantRead), PermWebhooksResend, PermKeysRotate, PermSettingsWrite, PermSandboxDrive),
	RoleFinance:   append(slices.Clone(merchantRead), PermOrdersRefund, PermOrdersCancel, PermExport, PermPayoutsRequest),
	RoleViewer:    slices.Clone(merchantRead),

	RoleAdmin: append(slices.Clone(operatorRead), PermMerchantsWrite, PermUSDTReview, PermExceptionsHandle, PermOpWebhooksResend,
		PermOpRefund, PermFXWrite, PermNetworksWrite, PermOperatorsManage, PermConsoleUsersWrite,
		PermFeesWrite, PermChannelsWrite,
		PermOpPayoutsDecide,
		PermOpReconImport),
	RoleSupport: append(slices.Clone(operatorRead), PermOpWebhooksResend, PermExceptionsHandle),
	RoleAuditor: slices.Clone(operatorRead),
}

// realmOf is each role's realm.
var realmOf = map[Role]Realm{
	RoleOwner: RealmMerchant, RoleDeveloper: RealmMerchant, RoleFinance: RealmMerchant, RoleViewer: RealmMerchant,
	RoleAdmin: RealmOperator, RoleSupport: RealmOperator, RoleAuditor: RealmOperator,
}

// Valid reports whether r is a role of realm.
func (r Role) Valid(realm Realm) bool { return realmOf[r] == realm && realm != "" }

// Roles lists realm's roles, most powerful first.
func Roles(realm Realm) []Role {
	if realm == RealmOperator {
		return []Role{RoleAdmin, RoleSupport, RoleAuditor}
	}
	return []Role{RoleOwner, RoleDeveloper, RoleFinance, RoleViewer}
}

// Allowed reports whether role may do p. An unknown role may do nothing.
func Allowed(role Role, p Permission) bool { return slices.Contains(grants[role], p) }

// Permissions lists what role may do.
func Permissions(role Role) []Permission { return slices.Clone(grants[role]) }

// Can reports whether the session's person may do p in realm: the page's
// check before every action. A session of the other realm may do nothing,
// so an operator session is refused by the merchant console and the other
// way round, whatever its role.
func Can(s *Session, realm Realm, p Permission) bool {
	return s != nil && ActorOf(s, "").Can(realm, p)
}
