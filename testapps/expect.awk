# expect.awk: turns "// expect: SC101 x10" comments of a test app into the
# expectation file that streamcheck --selftest and the tests check
# (format: libstreamcheck(7), EXPECTATIONS).
#   // expect: RULE xN[ SEV][ device=N][, ...]
#                                     a finding at this file:line (SEV: only
#                                     findings of that severity: warning, note;
#                                     device=N: only those on device N)
#   // expect-noloc: RULE xN           a finding with no source location
#   // expect-api: NAME N              exactly N calls of driver function NAME
BEGIN { n = split(FILENAME, parts, "/") }
FNR == 1 { n = split(FILENAME, parts, "/"); base = parts[n]; print "# generated from " base }
{
    line = $0
    if (match(line, /\/\/ expect: .*/)) {
        spec = substr(line, RSTART + 11)
        k = split(spec, items, ",")
        for (i = 1; i <= k; i++) {
            nf = split(items[i], f, " ")
            if (f[1] == "" ) continue
            sub(/^x/, "", f[2])
            rest = ""
            for (j = 3; j <= nf; j++) rest = rest " " f[j]
            print "finding " f[1] " " base ":" FNR " " f[2] rest
        }
    } else if (match(line, /\/\/ expect-noloc: .*/)) {
        split(substr(line, RSTART + 17), f, " ")
        sub(/^x/, "", f[2])
        print "finding " f[1] " - " f[2]
    } else if (match(line, /\/\/ expect-api: .*/)) {
        split(substr(line, RSTART + 15), f, " ")
        print "api " f[1] " " f[2]
    }
}
