"""Execution of programs in other languages than Python (C++, JavaScript, TypeScript, Go,
Rust, Java, Perl, Ruby, PHP, Lua, R, Racket, OCaml, Bash): their toolchains, how a program is
built and run, and the confined process that runs them."""
