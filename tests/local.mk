# tests: build fragment, included from the top-level Makefile.am.
