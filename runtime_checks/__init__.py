"""Runs the fixtures of tests/fixtures on real devices to prove each rule matches a real failure."""
