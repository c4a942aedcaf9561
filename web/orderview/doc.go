// Package orderview is a merchant's orders as the consoles draw them: the
// overview's figures and charts, one page of the orders listing and an
// order with its timeline, read through the query side's read models and
// the ClickHouse gate, every order checked to be the merchant's. The
// merchant console (web/console) draws its pages from it, and so does the
// operator console's read-only view of a merchant's console (web/admin),
// which thus shows what the merchant sees without importing the merchant
// console. It holds no write and mounts no route.
package orderview
