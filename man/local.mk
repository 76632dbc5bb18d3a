# man: build fragment, included from the top-level Makefile.am.

# libstreamcheck.7 is generated from its template and the rule catalogue by
# tools/gen-man-rules and committed, so building needs no generator and the
# page ships in the tarball; tests/golden/man-page.sh fails when the
# committed page is not what the generator writes.
dist_man_MANS += man/libstreamcheck.7
EXTRA_DIST += man/libstreamcheck.7.in

# Regenerates the committed page after a change to the template or to
# src/common/rules.def; review and commit the result.
update-man: tools/gen-man-rules$(EXEEXT)
	$(AM_V_GEN)tools/gen-man-rules$(EXEEXT) $(srcdir)/man/libstreamcheck.7.in \
	  > $(srcdir)/man/libstreamcheck.7.tmp && \
	  mv -f $(srcdir)/man/libstreamcheck.7.tmp $(srcdir)/man/libstreamcheck.7
.PHONY: update-man
