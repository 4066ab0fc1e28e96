"""Regenerates dateutil-floating.txt (python3 dateutil-floating.py SEED > cases; then keep ~300, first 12 occurrences each).
Needs python-dateutil 2.9.0. Rules that dateutil gets wrong (WEEKLY+BYSETPOS, BYWEEKNO+INTERVAL) are dropped by hand."""
import random, signal, sys
from datetime import datetime, timedelta
from dateutil.rrule import rrulestr
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
DAYS = ["MO","TU","WE","TH","FR","SA","SU"]
FREQS = ["SECONDLY","MINUTELY","HOURLY","DAILY","WEEKLY","MONTHLY","YEARLY"]
class TO(Exception): pass
def handler(s, f): raise TO()
signal.signal(signal.SIGALRM, handler)
def sub(vals, k): return random.sample(vals, random.randint(1, k))
def rule():
    f = random.choice(FREQS)
    parts = ["FREQ=" + f]
    if random.random() < 0.4: parts.append("INTERVAL=%d" % random.randint(1, 5))
    if random.random() < 0.3: parts.append("BYMONTH=" + ",".join(map(str, sub(range(1, 13), 3))))
    if f == "YEARLY" and random.random() < 0.3: parts.append("BYWEEKNO=" + ",".join(map(str, sub(list(range(1, 54)) + list(range(-53, 0)), 2))))
    if f in ("YEARLY", "SECONDLY", "MINUTELY", "HOURLY") and random.random() < 0.25: parts.append("BYYEARDAY=" + ",".join(map(str, sub(list(range(1, 367)) + list(range(-366, 0)), 3))))
    if f != "WEEKLY" and random.random() < 0.3: parts.append("BYMONTHDAY=" + ",".join(map(str, sub(list(range(1, 32)) + list(range(-31, 0)), 3))))
    if random.random() < 0.4:
        nth = f in ("MONTHLY", "YEARLY") and not any(p.startswith("BYWEEKNO") for p in parts)
        ds = []
        for d in sub(DAYS, 3):
            if nth and random.random() < 0.5:
                n = random.choice([1, 2, 3, 4, -1, -2]) if f == "MONTHLY" or any(p.startswith("BYMONTH=") for p in parts) else random.choice([1, 10, 20, 52, -1, -10])
                ds.append("%+d%s" % (n, d))
            else:
                ds.append(d)
        parts.append("BYDAY=" + ",".join(ds))
    if random.random() < 0.3: parts.append("BYHOUR=" + ",".join(map(str, sub(range(0, 24), 3))))
    if random.random() < 0.3: parts.append("BYMINUTE=" + ",".join(map(str, sub(range(0, 60), 3))))
    if random.random() < 0.2: parts.append("BYSECOND=" + ",".join(map(str, sub(range(0, 60), 2))))
    if random.random() < 0.25: parts.append("BYSETPOS=" + ",".join(map(str, sub([1, 2, 3, -1, -2], 2))))
    if random.random() < 0.2: parts.append("WKST=" + random.choice(DAYS))
    if random.random() < 0.2: parts.append("COUNT=%d" % random.randint(1, 20))
    return ";".join(parts)
n = 0
while n < 3000:
    r = rule()
    start = datetime(1990, 1, 1) + timedelta(seconds=random.randint(0, 50 * 365 * 86400))
    signal.alarm(2)
    try:
        rr = rrulestr(r, dtstart=start)
        out = []
        for d in rr:
            out.append(d.strftime("%Y-%m-%dT%H:%M:%S"))
            if len(out) >= 30: break
        signal.alarm(0)
    except TO:
        continue
    except Exception as e:
        signal.alarm(0)
        continue
    if not out: continue
    print("%s|%s|%s" % (r, start.strftime("%Y-%m-%dT%H:%M:%S"), ",".join(out)))
    n += 1
