"""Execution of programs in other languages than Python (C++, JavaScript, Go, Rust, Java):
their toolchains, how a program is built and run, and the confined process that runs them."""
