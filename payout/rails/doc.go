// Package rails are the payout sender's ways out (payout.Rail): the
// sandbox's simulated chains, which record each transfer by the payout's
// reference and answer a lookup of it, so a sender that crashed between
// sending and recording finds its transfer instead of sending it again.
package rails
