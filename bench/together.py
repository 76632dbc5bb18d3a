"""together.py: findings' prices added up as a fix that changes them all
would save.

Each finding of a JSON report is priced by what fixing it alone saves.
Where several share a fix (two copy lines of one pipeline, both pinned),
their savings overlap, and each carries what fixing all of them at once
saves (together_ns, over together_findings findings).  A comparison whose
fix changes all of them counts that once, not their costs added up; a group
only partly in the list counts its members' own costs.

SC102 (a blocking stream's creation site) is left out, as the report's
total leaves it out (judge.c, counted): measured, it carries the time the
legacy stream's commands waited for that stream, which is their own
findings' (SC101, SC202, ...); priced by its own fix (the stream created
non-blocking: a replay) it is the other fix of that wait.
"""


def added_up(findings):
    """The summed cost_ns of findings (dicts of a JSON report), each group
    fixed together whose members are all there counted once."""
    total = 0
    groups = {}
    for f in findings:
        if f.get("rule") == "SC102":
            continue
        n, t = int(f.get("together_findings") or 0), int(f.get("together_ns") or 0)
        if n >= 2:
            # a group is a fix's (SC203 and SC201 both pin): its process, size and saving name it
            groups.setdefault((f.get("process", 0), n, t), []).append(int(f.get("cost_ns") or 0))
        else:
            total += int(f.get("cost_ns") or 0)
    for (_, n, t), costs in groups.items():
        total += t if len(costs) == n else sum(costs)
    return total
