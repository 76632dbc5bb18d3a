# src/report/local.mk: the report model, its reader and merger, suppressions
# and filters, and the renderers (text, JSON, SARIF, JUnit, HTML, Markdown).
# Linked into the shim (which writes the report at exit) and into the
# launcher (`streamcheck report`).  No CUDA here, and no header of src/shim or src/cli.
SC_REPORT_CPPFLAGS = -I$(top_srcdir)/src/report $(SC_COMMON_CPPFLAGS)

noinst_LTLIBRARIES += src/report/libscreport.la
src_report_libscreport_la_SOURCES = \
	src/report/report.c src/report/report.h src/report/model.h src/report/fields.h src/report/idmap.c \
	src/report/report_sort.c src/report/report_merge.c src/report/judge.c \
	src/report/format.c src/report/frames.c src/report/readfile.c \
	src/report/render.c src/report/report_write.c src/report/symbols.c src/report/symbols.h \
	src/report/report_text.c src/report/text_layout.c src/report/text_layout.h src/report/report_json.c src/report/report_read.c \
	src/report/report_sarif.c src/report/report_junit.c src/report/report_trace.c src/report/report_md.c \
	src/report/report_html.c src/report/html_finding.c src/report/html_gpu.c \
	src/report/html_timeline.c src/report/html.c src/report/html.h \
	src/report/suppress.c src/report/suppress.h \
	src/report/filter.c src/report/filter.h
nodist_src_report_libscreport_la_SOURCES = src/report/html_assets.h
src_report_libscreport_la_CPPFLAGS = $(AM_CPPFLAGS) $(SC_REPORT_CPPFLAGS) -I$(top_builddir)/src/report

# The HTML page's CSS and JavaScript are files; html/embed.sh makes them C
# string macros (html_assets.h, in the build tree) before anything compiles.
SC_HTML_ASSETS = src/report/html/report.css src/report/html/report.js \
	src/report/html/gpu.css src/report/html/gpu.js
EXTRA_DIST += $(SC_HTML_ASSETS) src/report/html/embed.sh
BUILT_SOURCES += src/report/html_assets.h
CLEANFILES += src/report/html_assets.h
src/report/html_assets.h: $(SC_HTML_ASSETS) src/report/html/embed.sh
	$(AM_V_GEN)$(MKDIR_P) src/report && \
	$(SHELL) $(srcdir)/src/report/html/embed.sh $(srcdir) $(SC_HTML_ASSETS) > $@.tmp && mv -f $@.tmp $@

# What a program that reads or renders reports links: libscrules.la is not
# folded into libscreport.la, so that the shim, which links both, does not
# get the catalogue twice.
SC_REPORT_LIBS = src/report/libscreport.la src/common/libsccommon.la
