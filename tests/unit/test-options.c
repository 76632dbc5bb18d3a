/* test-options: the STREAMCHECK_* settings (src/common/options.def): their
 * defaults, the environment, the config file, the messages a bad value
 * gets, and the --dump-config table. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
#include "rules.h"
#include "sc.h"

/* What sc_options_load warned, one message a line. */
static char warned[8192];

static void collect(const char *msg)
{
    snprintf(warned + strlen(warned), sizeof warned - strlen(warned), "%s\n", msg);
}

/* Loads with only the given STREAMCHECK_* variables set ("NAME=VALUE", NULL
   ended; Check runs each test in a process of its own). */
static void load(sc_options *o, const char *const *env)
{
    for (int i = 0; i < SC_NOPTS; i++) {
        char var[64];
        snprintf(var, sizeof var, "STREAMCHECK_%s", sc_option_name((sc_opt_id)i));
        unsetenv(var);
    }
    unsetenv("STREAMCHECK_CONFIG");
    for (; env && *env; env++)
        ck_assert_int_eq(putenv((char *)*env), 0);
    warned[0] = 0;
    sc_options_load(o, collect);
}

/* A config file with this text; returns its path. */
static const char *config(const char *text)
{
    static char path[] = "/tmp/sc-test-options.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

START_TEST(defaults)
{
    sc_options o;
    load(&o, NULL);
    ck_assert_str_eq(warned, "");
    ck_assert_int_eq(o.disable, 0);
    ck_assert_str_eq(o.output, "");
    ck_assert_uint_eq(o.formats, SC_FMT_TEXT);
    ck_assert_int_eq(o.measure, 0);
    ck_assert_int_eq(o.measure_window.set, 0);
    ck_assert_int_eq(o.stack_depth, 8);
    ck_assert_int_eq(o.python_depth, 4);
    ck_assert_int_eq(o.log_level, SC_LOG_WARNING);
    ck_assert_int_eq(o.dump_config, 0);
    ck_assert_int_eq(o.profile, 0);
    ck_assert_int_eq(o.redirect, 0);
    ck_assert_int_eq(o.redirect_method, SC_RDM_STREAM);
    ck_assert_uint_eq(o.rules, 0);
    ck_assert_uint_eq(o.ignore, 0);
    ck_assert_str_eq(o.suppressions, "");
    ck_assert_str_eq(o.source_root, "");
    ck_assert_int_eq(o.alloc_loop_min, 10);
    ck_assert_int_eq(o.sync_frequent, 100);
    ck_assert_int_eq(o.symbolize_ms, 2000);
    ck_assert_int_eq(o.snapshot, 0);
    ck_assert_int_eq(o.top, 10);
    ck_assert_int_eq(o.warn_cost_us, 1000);
    ck_assert_int_eq(o.warn_share_bp, 50);
    ck_assert_str_eq(o.status_dir, "");
    for (int i = 0; i < SC_NOPTS; i++)
        ck_assert_str_eq(o.source[i], "default");
}
END_TEST

START_TEST(environment)
{
    static const char *const env[] = {
        "STREAMCHECK_DISABLE=YES", "STREAMCHECK_OUTPUT=/out", "STREAMCHECK_FORMAT=json,html",
        "STREAMCHECK_MEASURE=on", "STREAMCHECK_STACK_DEPTH=64", "STREAMCHECK_PYTHON_DEPTH=0",
        "STREAMCHECK_LOG_LEVEL=DEBUG", "STREAMCHECK_DUMP_CONFIG=true", "STREAMCHECK_PROFILE=1",
        "STREAMCHECK_REDIRECT=Per-Thread", "STREAMCHECK_REDIRECT_METHOD=handle",
        "STREAMCHECK_RULES= SC101 ,blocking-stream,", "STREAMCHECK_IGNORE=SC203",
        "STREAMCHECK_SUPPRESSIONS=s.supp", "STREAMCHECK_RANGE=train step", "STREAMCHECK_SOURCE_ROOT=/src",
        "STREAMCHECK_ALLOC_LOOP_MIN=2",
        "STREAMCHECK_SYNC_FREQUENT=1000000000", "STREAMCHECK_SYMBOLIZE_MS=0", "STREAMCHECK_TOP=0",
        "STREAMCHECK_WARN_COST_US=3600000000", "STREAMCHECK_WARN_SHARE_BP=10000",
        "STREAMCHECK_GPU_SAMPLE_US=250", "STREAMCHECK_STATUS_DIR=/status", "STREAMCHECK_MEASURE_WINDOW=2.5:0.25",
        "STREAMCHECK_SNAPSHOT=60", "STREAMCHECK_VERBOSE=on", "STREAMCHECK_DEFER_SYMBOLS=1", NULL,
    };
    sc_options o;
    load(&o, env);
    ck_assert_str_eq(warned, "");
    ck_assert(o.measure_window.set && o.measure_window.start == 2.5 && o.measure_window.length == 0.25);
    ck_assert_int_eq(o.disable, 1);
    ck_assert_str_eq(o.output, "/out");
    ck_assert_uint_eq(o.formats, SC_FMT_JSON | SC_FMT_HTML);
    ck_assert_int_eq(o.measure, 1);
    ck_assert_int_eq(o.stack_depth, 64);
    ck_assert_int_eq(o.python_depth, 0);
    ck_assert_int_eq(o.log_level, SC_LOG_DEBUG);
    ck_assert_int_eq(o.dump_config, 1);
    ck_assert_int_eq(o.profile, 1);
    ck_assert_int_eq(o.redirect, 1);
    ck_assert_int_eq(o.redirect_method, SC_RDM_HANDLE);
    ck_assert_uint_eq(o.rules, 1ull << sc_rule_lookup("SC101") | 1ull << sc_rule_lookup("blocking-stream"));
    ck_assert_uint_eq(o.ignore, 1ull << sc_rule_lookup("SC203"));
    ck_assert_str_eq(o.suppressions, "s.supp");
    ck_assert_str_eq(o.range, "train step");
    ck_assert_str_eq(o.source_root, "/src");
    ck_assert_int_eq(o.alloc_loop_min, 2);
    ck_assert_int_eq(o.sync_frequent, 1000000000);
    ck_assert_int_eq(o.symbolize_ms, 0);
    ck_assert_int_eq(o.top, 0);
    ck_assert_int_eq(o.warn_cost_us, 3600000000L);
    ck_assert_int_eq(o.warn_share_bp, 10000);
    ck_assert_int_eq(o.gpu_sample_us, 250);
    ck_assert_str_eq(o.status_dir, "/status");
    ck_assert_int_eq(o.snapshot, 60);
    ck_assert_int_eq(o.verbose, 1);
    ck_assert_int_eq(o.defer_symbols, 1);
    for (int i = 0; i < SC_NOPTS; i++)
        ck_assert_str_eq(o.source[i], "environment");
}
END_TEST

/* Whether text holds line as a whole line, once. */
static int has_line(const char *text, const char *line)
{
    int n = 0;
    size_t len = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); p += len)
        n += (p == text || p[-1] == '\n') && p[len] == '\n';
    return n == 1;
}

/* Whether text is exactly these lines, in any order (the table's order is
   not a promise). */
static void has_lines(const char *text, const char *const *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(has_line(text, want[i]), "no line '%s' in\n%s", want[i], text);
    size_t lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    ck_assert_uint_eq(lines, n);
}

/* A bad value: one line naming the variable and what it accepts; the
   default stays. */
START_TEST(bad_environment)
{
    static const char *const env[] = {
        "STREAMCHECK_DISABLE=2", "STREAMCHECK_STACK_DEPTH=lots", "STREAMCHECK_PYTHON_DEPTH=33",
        "STREAMCHECK_LOG_LEVEL=loud", "STREAMCHECK_REDIRECT=on", "STREAMCHECK_TOP=1x",
        "STREAMCHECK_RULES=SC101,nope", "STREAMCHECK_SYNC_FREQUENT=1", "STREAMCHECK_MEASURE_WINDOW=1:0", NULL,
    };
    sc_options o;
    load(&o, env);
    static const char *const want[] = {
        "STREAMCHECK_DISABLE='2' is not valid (expected 0 or 1); using the default",
        "STREAMCHECK_STACK_DEPTH='lots' is not valid (expected an integer from 1 to 64); using the default",
        "STREAMCHECK_PYTHON_DEPTH='33' is not valid (expected an integer from 0 to 32); using the default",
        "STREAMCHECK_LOG_LEVEL='loud' is not valid (expected quiet, warning, info or debug); using the default",
        "STREAMCHECK_REDIRECT='on' is not valid (expected off or per-thread); using the default",
        "STREAMCHECK_RULES: 'nope' is not a rule id or name (see streamcheck --list-rules); using the default",
        "STREAMCHECK_SYNC_FREQUENT='1' is not valid (expected an integer from 2 to 1000000000); using the default",
        "STREAMCHECK_TOP='1x' is not valid (expected an integer from 0 to 1000000 (0: all)); using the default",
        "STREAMCHECK_MEASURE_WINDOW='1:0' is not valid (expected START:LENGTH in seconds (30:10, 2.5:0.5), or "
        "START: for the rest of the run); using the default",
    };
    has_lines(warned, want, SC_ARRAY_LEN(want));
    ck_assert_int_eq(o.disable, 0);
    ck_assert_int_eq(o.stack_depth, 8);
    ck_assert_int_eq(o.python_depth, 4);
    ck_assert_int_eq(o.log_level, SC_LOG_WARNING);
    ck_assert_int_eq(o.redirect, 0);
    ck_assert_int_eq(o.top, 10);
    ck_assert_uint_eq(o.rules, 0);
    ck_assert_int_eq(o.sync_frequent, 100);
    ck_assert_str_eq(o.source[SC_OPT_TOP], "default");
    ck_assert_int_eq(o.measure_window.set, 0);
}
END_TEST

/* A window: START:LENGTH seconds, START: (or START) to the end, empty for
   none; anything else is refused. */
START_TEST(measure_window)
{
    static const struct { const char *v; int ok, set; double start, length; } cases[] = {
        {"30:10", 1, 1, 30, 10}, {"0:0.5", 1, 1, 0, 0.5}, {"12.5:", 1, 1, 12.5, 0}, {"7", 1, 1, 7, 0},
        {"", 1, 0, 0, 0}, {"-1:2", 0, 0, 0, 0}, {"3:0", 0, 0, 0, 0}, {"3:-1", 0, 0, 0, 0}, {"a:1", 0, 0, 0, 0},
        {"3:4x", 0, 0, 0, 0}, {"3:4:5", 0, 0, 0, 0}, {"nan:1", 0, 0, 0, 0}, {"1e9:1", 0, 0, 0, 0},
    };
    static char var[64];
    for (size_t i = 0; i < SC_ARRAY_LEN(cases); i++) {
        snprintf(var, sizeof var, "STREAMCHECK_MEASURE_WINDOW=%s", cases[i].v);
        const char *const env[] = {var, NULL};
        sc_options o;
        load(&o, env);
        ck_assert_msg((warned[0] == 0) == cases[i].ok, "'%s': %s", cases[i].v, warned);
        ck_assert_int_eq(o.measure_window.set, cases[i].set);
        ck_assert(o.measure_window.start == cases[i].start && o.measure_window.length == cases[i].length);
    }
}
END_TEST

/* The file's format names are the format table's to judge; only the frame
   of the message is the loader's. */
START_TEST(bad_format)
{
    static const char *const env[] = {"STREAMCHECK_FORMAT=json,pdf", NULL};
    sc_options o;
    load(&o, env);
    ck_assert_msg(!strncmp(warned, "STREAMCHECK_FORMAT: ", 20), "%s", warned);
    ck_assert_ptr_nonnull(strstr(warned, "'pdf'"));
    ck_assert_ptr_nonnull(strstr(warned, "; using the default\n"));
    ck_assert_uint_eq(o.formats, SC_FMT_TEXT);
}
END_TEST

/* REDIRECT_METHOD's and LOG_LEVEL's values are the SC_RDM_* and SC_LOG_*
   constants the shim compares with. */
START_TEST(enum_constants)
{
    static const struct { const char *var; int rdm, log; } cases[] = {
        {"entry", SC_RDM_ENTRY, -1}, {"handle", SC_RDM_HANDLE, -1}, {"stream", SC_RDM_STREAM, -1},
        {"quiet", -1, SC_LOG_QUIET}, {"warning", -1, SC_LOG_WARNING}, {"info", -1, SC_LOG_INFO},
        {"debug", -1, SC_LOG_DEBUG},
    };
    static char var[64];   /* in the environment until the next load */
    for (size_t i = 0; i < SC_ARRAY_LEN(cases); i++) {
        snprintf(var, sizeof var, "STREAMCHECK_%s=%s", cases[i].rdm >= 0 ? "REDIRECT_METHOD" : "LOG_LEVEL",
                 cases[i].var);
        const char *const env[] = {var, NULL};
        sc_options o;
        load(&o, env);
        ck_assert_str_eq(warned, "");
        ck_assert_int_eq(cases[i].rdm >= 0 ? o.redirect_method : o.log_level,
                         cases[i].rdm >= 0 ? cases[i].rdm : cases[i].log);
    }
}
END_TEST

START_TEST(config_file)
{
    const char *path = config("# settings\n"
                              "\n"
                              "  TOP = 3  \n"
                              "bogus line\n"
                              "NOPE = 1\n"
                              "STATUS_DIR = /x\n"
                              "streamcheck_format=json\n"
                              "STACK_DEPTH=0\n"
                              "log_level = info\n"
                              "OUTPUT = /from/file\n"
                              "PYTHON_DEPTH = 2\n");
    char cfg[600], tmo[64] = "STREAMCHECK_TOP=x", out[] = "STREAMCHECK_OUTPUT=/env";
    snprintf(cfg, sizeof cfg, "STREAMCHECK_CONFIG=%s", path);
    const char *const env[] = {cfg, tmo, out, NULL};
    sc_options o;
    load(&o, env);
    char want[4096];
    snprintf(want, sizeof want,
             "%s:4: expected NAME = VALUE\n"
             "%s:5: unknown setting 'NOPE'\n"
             "%s:6: unknown setting 'STATUS_DIR'\n"
             "%s:8: STREAMCHECK_STACK_DEPTH='0' is not valid (expected an integer from 1 to 64); line ignored\n"
             "STREAMCHECK_TOP='x' is not valid (expected an integer from 0 to 1000000 (0: all)); using %s\n",
             path, path, path, path, path);
    ck_assert_str_eq(warned, want);
    ck_assert_int_eq(o.top, 3);
    ck_assert_str_eq(o.source[SC_OPT_TOP], path);
    ck_assert_uint_eq(o.formats, SC_FMT_JSON);
    ck_assert_str_eq(o.source[SC_OPT_FORMAT], path);
    ck_assert_int_eq(o.stack_depth, 8);
    ck_assert_str_eq(o.source[SC_OPT_STACK_DEPTH], "default");
    ck_assert_int_eq(o.log_level, SC_LOG_INFO);
    ck_assert_int_eq(o.python_depth, 2);
    ck_assert_str_eq(o.output, "/env");
    ck_assert_str_eq(o.source[SC_OPT_OUTPUT], "environment");
    ck_assert_str_eq(o.status_dir, "");
    unlink(path);
}
END_TEST

START_TEST(missing_config_file)
{
    static const char *const env[] = {"STREAMCHECK_CONFIG=/nonexistent/sc.conf", NULL};
    sc_options o;
    load(&o, env);
    ck_assert_str_eq(warned, "STREAMCHECK_CONFIG: cannot read '/nonexistent/sc.conf': No such file or directory; "
                             "using defaults\n");
    ck_assert_int_eq(o.top, 10);
}
END_TEST

/* What cannot be a settings file is refused whole, at once: a device that
   never ends (/dev/zero hung the program before main), a FIFO (blocks), a
   binary, a file too large; a text file with many bad lines says five and
   counts the rest. */
START_TEST(config_file_bounded)
{
    char cfg[600], want[1200];
    sc_options o;
    const char *const zero[] = {"STREAMCHECK_CONFIG=/dev/zero", NULL};
    load(&o, zero);
    ck_assert_str_eq(warned, "STREAMCHECK_CONFIG: '/dev/zero' is not a regular file; using defaults\n");
    ck_assert_int_eq(o.top, 10);

    char fifo[] = "/tmp/sc-test-fifo.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(fifo));
    char fpath[500];
    snprintf(fpath, sizeof fpath, "%s/f", fifo);
    ck_assert_int_eq(mkfifo(fpath, 0600), 0);
    snprintf(cfg, sizeof cfg, "STREAMCHECK_CONFIG=%s", fpath);
    const char *const env_fifo[] = {cfg, NULL};
    load(&o, env_fifo);
    snprintf(want, sizeof want, "STREAMCHECK_CONFIG: '%s' is not a regular file; using defaults\n", fpath);
    ck_assert_str_eq(warned, want);
    unlink(fpath);
    rmdir(fifo);

    static char bin[1000];
    memset(bin, 'A', sizeof bin - 1);
    memcpy(bin, "TOP = 3\n", 8);
    bin[300] = '\1';
    const char *path = config(bin);
    FILE *f = fopen(path, "a");
    fputc(0, f);
    fputs("\nTOP = 4\n", f);
    fclose(f);
    snprintf(cfg, sizeof cfg, "STREAMCHECK_CONFIG=%s", path);
    const char *const env_bin[] = {cfg, NULL};
    load(&o, env_bin);
    snprintf(want, sizeof want, "STREAMCHECK_CONFIG: '%s' is not a text file (a NUL byte at offset 999); "
             "using defaults\n", path);
    ck_assert_str_eq(warned, want);
    ck_assert_int_eq(o.top, 10);   /* not even the good first line */

    f = fopen(path, "w");
    for (int i = 0; i < 7000; i++)
        fputs("# a comment\n", f);
    fclose(f);
    load(&o, env_bin);
    snprintf(want, sizeof want, "STREAMCHECK_CONFIG: '%s' is larger than 64 KiB, not a settings file; "
             "using defaults\n", path);
    ck_assert_str_eq(warned, want);

    f = fopen(path, "w");
    for (int i = 0; i < 20; i++)
        fputs("junk\n", f);
    fputs("TOP = 5\n", f);
    fclose(f);
    load(&o, env_bin);
    snprintf(want, sizeof want,
             "%s:1: expected NAME = VALUE\n%s:2: expected NAME = VALUE\n%s:3: expected NAME = VALUE\n"
             "%s:4: expected NAME = VALUE\n%s:5: expected NAME = VALUE\n"
             "%s: 15 more lines were not understood (not shown); they were ignored\n",
             path, path, path, path, path, path);
    ck_assert_str_eq(warned, want);
    ck_assert_int_eq(o.top, 5);
    unlink(path);
}
END_TEST

START_TEST(check_and_lookup)
{
    char err[400];
    ck_assert_int_eq(sc_option_check(SC_OPT_STACK_DEPTH, "12", err, sizeof err), 0);
    ck_assert_int_eq(sc_option_check(SC_OPT_STACK_DEPTH, "65", err, sizeof err), -1);
    ck_assert_str_eq(err, "STREAMCHECK_STACK_DEPTH='65' is not valid (expected an integer from 1 to 64)");
    ck_assert_int_eq(sc_option_check(SC_OPT_REDIRECT_METHOD, "ENTRY", err, sizeof err), 0);
    ck_assert_int_eq(sc_option_check(SC_OPT_REDIRECT_METHOD, "default", err, sizeof err), -1);
    ck_assert_str_eq(err, "STREAMCHECK_REDIRECT_METHOD='default' is not valid (expected stream, entry or handle)");
    ck_assert_int_eq(sc_option_check(SC_OPT_WARN_COST_US, "3600000001", err, sizeof err), -1);
    ck_assert_str_eq(err, "STREAMCHECK_WARN_COST_US='3600000001' is not valid (expected an integer number of "
                          "microseconds from 0 to 3600000000)");
    ck_assert_int_eq(sc_option_check(SC_OPT_IGNORE, "", err, sizeof err), 0);
    ck_assert_int_eq(sc_option_check(SC_OPT_IGNORE, "SC1", err, sizeof err), -1);
    ck_assert_str_eq(err, "STREAMCHECK_IGNORE: 'SC1' is not a rule id or name (see streamcheck --list-rules)");
    char longpath[5000];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = 0;
    ck_assert_int_eq(sc_option_check(SC_OPT_OUTPUT, longpath + 1000, err, sizeof err), 0);
    ck_assert_int_eq(sc_option_check(SC_OPT_OUTPUT, longpath, err, sizeof err), -1);
    ck_assert_int_eq(sc_option_lookup("STREAMCHECK_TOP"), SC_OPT_TOP);
    ck_assert_int_eq(sc_option_lookup("warn_share_bp"), SC_OPT_WARN_SHARE_BP);
    ck_assert_int_eq(sc_option_lookup("CONFIG"), -1);
    ck_assert_str_eq(sc_option_name(SC_OPT_SOURCE_ROOT), "SOURCE_ROOT");
}
END_TEST

START_TEST(dump)
{
    static const char *const env[] = {
        "STREAMCHECK_FORMAT=html,text,trace", "STREAMCHECK_IGNORE=SC203,SC101", "STREAMCHECK_LOG_LEVEL=quiet",
        "STREAMCHECK_REDIRECT=per-thread", "STREAMCHECK_REDIRECT_METHOD=entry", "STREAMCHECK_OUTPUT=/o",
        "STREAMCHECK_MEASURE_WINDOW=1.5", NULL,
    };
    sc_options o;
    load(&o, env);
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    sc_options_dump(&o, f);
    fclose(f);
    static const char *const want[] = {
        "STREAMCHECK_DISABLE          = 0                        (default)",
        "STREAMCHECK_OUTPUT           = /o                       (environment)",
        "STREAMCHECK_FORMAT           = text,trace,html          (environment)",
        "STREAMCHECK_SNAPSHOT         = 0                        (default)",
        "STREAMCHECK_MEASURE          = 0                        (default)",
        "STREAMCHECK_MEASURE_WINDOW   = 1.5:                     (environment)",
        "STREAMCHECK_STACK_DEPTH      = 8                        (default)",
        "STREAMCHECK_PYTHON_DEPTH     = 4                        (default)",
        "STREAMCHECK_LOG_LEVEL        = quiet                    (environment)",
        "STREAMCHECK_DUMP_CONFIG      = 0                        (default)",
        "STREAMCHECK_PROFILE          = 0                        (default)",
        "STREAMCHECK_REDIRECT         = per-thread               (environment)",
        "STREAMCHECK_REDIRECT_METHOD  = entry                    (environment)",
        "STREAMCHECK_RULES            =                          (default)",
        "STREAMCHECK_IGNORE           = SC101,SC203              (environment)",
        "STREAMCHECK_SUPPRESSIONS     =                          (default)",
        "STREAMCHECK_RANGE            =                          (default)",
        "STREAMCHECK_SOURCE_ROOT      =                          (default)",
        "STREAMCHECK_ALLOC_LOOP_MIN   = 10                       (default)",
        "STREAMCHECK_SYNC_FREQUENT    = 100                      (default)",
        "STREAMCHECK_SYMBOLIZE_MS     = 2000                     (default)",
        "STREAMCHECK_TOP              = 10                       (default)",
        "STREAMCHECK_VERBOSE          = 0                        (default)",
        "STREAMCHECK_WARN_COST_US     = 1000                     (default)",
        "STREAMCHECK_WARN_SHARE_BP    = 50                       (default)",
        "STREAMCHECK_GPU_SAMPLE_US    = 1000                     (default)",
        "STREAMCHECK_STATUS_DIR       =                          (default)",
        "STREAMCHECK_DEFER_SYMBOLS    = 0                        (default)",
    };
    ck_assert_uint_eq(SC_ARRAY_LEN(want), SC_NOPTS);
    has_lines(text, want, SC_ARRAY_LEN(want));
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("options");
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, environment);
    tcase_add_test(tc, bad_environment);
    tcase_add_test(tc, measure_window);
    tcase_add_test(tc, bad_format);
    tcase_add_test(tc, enum_constants);
    tcase_add_test(tc, config_file);
    tcase_add_test(tc, missing_config_file);
    tcase_add_test(tc, config_file_bounded);
    tcase_add_test(tc, check_and_lookup);
    tcase_add_test(tc, dump);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
