"""Unit tests of tools/nvmeof/clientserver.py on real fio client outputs (no testbed).

The fixtures under tests/tools/fixtures/clientserver/ are the stdout of `fio --client=...
--client=... --output-format=json` from tests/integration/engine_clientserver.sh (two fio
servers on the testbed guest's loopback, 127.0.0.1:8765 with size 1 MiB and :8766 with 2 MiB):
  null.stdout      ioengine=null: fio's own lines only (job description, Starting, empty)
  verify.stdout    the engine, write + verify, one job per server
  json.stdout      the engine, numjobs=2 (thread) per server: 4 results + "All clients"
  err.stdout       the engine, nsid 9: the engine's error lines forwarded, job errors
  strict.stdout    one server started with --output-format=json: only the document
  prefix.stdout    verify.fio with the engine before its server-mode fix: its start lines
                   in the client's stdout (the parser copes; the suite forbids them)"""
import json
import os
import re
import stat
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, REPO)
from tools.nvmeof import clientserver as cs, fiojson  # noqa: E402

FIX = os.path.join(REPO, "tests", "tools", "fixtures", "clientserver")
A, B = "127.0.0.1:8765", "127.0.0.1:8766"
# fio's own lines: job description, "..." (numjobs > 1), "Starting N process(es)/thread(s)"
FIO_OWN = re.compile(r"^<[^>]*> (|\.\.\.|\S+: \(g=\d+\): rw=.*|Starting \d+ (process|thread)e?s?)$")


def fixture(name):
    with open(os.path.join(FIX, name)) as f:
        return f.read()


def moved(job):
    return max(job[d]["io_bytes"] for d in ("read", "write"))


class Hosts(unittest.TestCase):
    def test_parse_host(self):
        self.assertEqual(cs.parse_host("h1"), ("ip", "h1", 8765))
        self.assertEqual(cs.parse_host("h1:8766"), ("ip", "h1", 8766))
        self.assertEqual(cs.parse_host("10.0.0.2,4444"), ("ip", "10.0.0.2", 4444))
        self.assertEqual(cs.parse_host("ip:h1,9"), ("ip", "h1", 9))
        self.assertEqual(cs.parse_host("ip4:h1"), ("ip", "h1", 8765))
        self.assertEqual(cs.parse_host("[::1]:8767"), ("ip6", "::1", 8767))
        self.assertEqual(cs.parse_host("[::1]"), ("ip6", "::1", 8765))
        self.assertEqual(cs.parse_host("fe80::1"), ("ip6", "fe80::1", 8765))
        self.assertEqual(cs.parse_host("ip6:::1,4444"), ("ip6", "::1", 4444))
        self.assertEqual(cs.parse_host("sock:/tmp/fio.sock"), ("sock", "/tmp/fio.sock", 0))
        for bad in ("", " ", "h:0", "h:65536", "h:x", ":8765", "[::1", "[::1]x", "sock:"):
            with self.assertRaises(ValueError, msg=bad):
                cs.parse_host(bad)

    def test_client_spec_and_key(self):
        self.assertEqual(cs.client_spec("h1"), "ip:h1,8765")
        self.assertEqual(cs.client_spec("127.0.0.1:8766"), "ip:127.0.0.1,8766")
        self.assertEqual(cs.client_spec("[::1]:8767"), "ip6:::1,8767")
        self.assertEqual(cs.client_spec("sock:/s"), "sock:/s")
        self.assertEqual(cs.host_key("h1"), "h1:8765")
        self.assertEqual(cs.host_key("ip:127.0.0.1,8766"), B)
        self.assertEqual(cs.host_key("[::1]:8767"), "[::1]:8767")
        self.assertEqual(cs.host_key("sock:/s"), "sock:/s")

    def test_parse_hosts(self):
        self.assertEqual(cs.parse_hosts("h1, h2:8766,"), ["h1", "h2:8766"])
        for bad in ("", ",", "h1,h1:8765", "h1,h2:0"):
            with self.assertRaises(ValueError, msg=bad):
                cs.parse_hosts(bad)

    def test_client_args(self):
        self.assertEqual(cs.client_args(["h1", "h2:8766"], ["a.fio", "b.fio"]),
                         ["--client=ip:h1,8765", "a.fio", "b.fio",
                          "--client=ip:h2,8766", "a.fio", "b.fio"])
        self.assertEqual(cs.client_args(["h1"], "a.fio"), ["--client=ip:h1,8765", "a.fio"])
        self.assertEqual(cs.command(["h1"], ["a.fio"], fio="/x/fio", client_opts=["--output=o"]),
                         ["/x/fio", "--output-format=json", "--output=o",
                          "--client=ip:h1,8765", "a.fio"])
        with self.assertRaises(ValueError):
            cs.client_args([], ["a.fio"])


class Fixtures(unittest.TestCase):
    def split(self, name):
        text = fixture(name)
        doc = fiojson.parse(text)
        return text, doc, cs.split_results(doc)

    def test_null_only_fio_lines(self):
        text, doc, (per_host, combined) = self.split("null.stdout")
        lines = cs.text_lines(text)
        self.assertTrue(lines)
        self.assertEqual([l for l in lines if not FIO_OWN.match(l)], [])
        self.assertEqual(sum("Starting 1 process" in l for l in lines), 2)
        self.assertEqual(sorted(per_host), [A, B])
        self.assertEqual([j["jobname"] for j in combined], [cs.ALL_CLIENTS])

    def test_verify(self):
        text, doc, (per_host, combined) = self.split("verify.stdout")
        self.assertEqual({k: [moved(j) for j in v] for k, v in per_host.items()},
                         {A: [1 << 20], B: [2 << 20]})
        self.assertEqual(moved(combined[0]), 3 << 20)
        self.assertFalse([l for l in cs.text_lines(text) if "nvmeof:" in l])
        for jobs in per_host.values():
            self.assertEqual(jobs[0]["error"], 0)
            self.assertEqual(jobs[0]["job options"]["verify"], "crc32c")

    def test_json_two_jobs_per_host(self):
        text, doc, (per_host, combined) = self.split("json.stdout")
        self.assertEqual({k: len(v) for k, v in per_host.items()}, {A: 2, B: 2})
        self.assertEqual(len(combined), 1)
        self.assertEqual(combined[0]["jobname"], cs.ALL_CLIENTS)
        rows = dict(cs.report_rows(doc))
        self.assertEqual(sorted(rows), sorted([A, B, cs.COMBINED_LABEL]))
        order = cs.report_rows(doc, ["127.0.0.1:8766", "ip:127.0.0.1,8765"])
        self.assertEqual([k for k, _ in order], [B, A, cs.COMBINED_LABEL])
        self.assertEqual([k for k, _ in cs.report_rows(doc, [A, B])], [A, B, cs.COMBINED_LABEL])
        with self.assertRaisesRegex(ValueError, "no results from 127.0.0.1:8767"):
            cs.report_rows(doc, [A, "127.0.0.1:8767"])
        self.assertEqual(rows[A]["io_bytes"], 2 << 20)
        self.assertEqual(rows[B]["io_bytes"], 4 << 20)
        # fio's "All clients" is the sum of every server's jobs
        self.assertEqual(rows[cs.COMBINED_LABEL]["io_bytes"], 6 << 20)
        self.assertEqual(rows[cs.COMBINED_LABEL]["ios"], rows[A]["ios"] + rows[B]["ios"])
        self.assertEqual(rows[A]["ios"], (2 << 20) // 4096)

    def test_fill_percentiles(self):
        # fio 3.33's "All clients" has no percentile table: the combined row gets the worst host's
        _text, doc, _split = self.split("json.stdout")
        self.assertNotIn("percentile", [j for j in doc["client_stats"]
                                        if j["jobname"] == cs.ALL_CLIENTS][0]["read"]["clat_ns"])
        rows = [(A, {"lat_p99_us": 10.0, "lat_p50_us": 3.0}), (B, {"lat_p99_us": 30.0, "lat_p50_us": 2.0}),
                (cs.COMBINED_LABEL, {"lat_p99_us": None, "lat_p50_us": None})]
        self.assertEqual(sorted(cs.fill_percentiles(rows)), ["lat_p50_us", "lat_p99_us"])
        self.assertEqual((rows[-1][1]["lat_p99_us"], rows[-1][1]["lat_p50_us"]), (30.0, 3.0))
        given = [(A, {"lat_p99_us": 10.0}), (B, {"lat_p99_us": 30.0}), (cs.COMBINED_LABEL, {"lat_p99_us": 12.0})]
        self.assertEqual(cs.fill_percentiles(given), [])
        self.assertEqual(given[-1][1]["lat_p99_us"], 12.0)
        self.assertEqual(cs.fill_percentiles(given[1:]), [])      # one host: nothing to fill

    def test_error_lines_forwarded(self):
        text, doc, (per_host, combined) = self.split("err.stdout")
        errs = [l for l in cs.text_lines(text) if re.match(r"^<[^>]*> nvmeof: namespace 9 ", l)]
        self.assertEqual(len(errs), 2)
        self.assertEqual(sorted(per_host), [A, B])
        for jobs in per_host.values():
            self.assertNotEqual(jobs[0]["error"], 0)
            self.assertNotEqual(fiojson.job_metrics(jobs[0])["error"], 0)

    def test_strict(self):
        text = fixture("strict.stdout")
        doc = json.loads(text)                      # nothing but the document
        self.assertEqual(cs.text_lines(text), [])
        per_host, combined = cs.split_results(doc)
        self.assertEqual(list(per_host), ["127.0.0.1:8767"])
        self.assertEqual(combined, per_host["127.0.0.1:8767"])   # one result: no "All clients"

    def test_prefix_engine_lines_skipped(self):
        text, doc, (per_host, combined) = self.split("prefix.stdout")
        starts = [l for l in cs.text_lines(text) if re.match(r"^<[^>]*> nvmeof: v: nqn", l)]
        self.assertEqual(len(starts), 2)
        self.assertEqual(sorted(per_host), [A, B])

    def test_local_document(self):
        doc = {"jobs": [{"jobname": "x", "read": {"io_bytes": 5}}]}
        self.assertEqual(cs.split_results(doc), ({"local": doc["jobs"]}, doc["jobs"]))

    def test_text_around(self):
        body = fixture("json.stdout")
        text = "<h> a { brace\n{ not json\n" + body + "\nclient <h>: exited with error 1\n"
        self.assertEqual(fiojson.parse(text), fiojson.parse(body))
        self.assertEqual(cs.text_lines(text)[:2], ["<h> a { brace", "{ not json"])
        self.assertEqual(cs.text_lines(text)[-1], "client <h>: exited with error 1")
        self.assertEqual(cs.text_lines("no doc\n\nhere"), ["no doc", "here"])


class Run(unittest.TestCase):
    def test_run_with_stand_in_fio(self):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "fio")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\necho \"$@\" >%s/args\ncat %s\necho note >&2\nexit 3\n"
                        % (d, os.path.join(FIX, "verify.stdout")))
            os.chmod(fake, stat.S_IRWXU)
            rc, doc, out, err = cs.run(["127.0.0.1:8765", B], ["j.fio"], fio=fake)
            self.assertEqual(rc, 3)
            self.assertEqual(err, "note\n")
            self.assertEqual(sorted(cs.split_results(doc)[0]), [A, B])
            with open(os.path.join(d, "args")) as f:
                self.assertEqual(f.read().split(), ["--output-format=json",
                                 "--client=ip:127.0.0.1,8765", "j.fio",
                                 "--client=ip:127.0.0.1,8766", "j.fio"])
            with open(fake, "w") as f:
                f.write("#!/bin/sh\necho 'fio: failed to connect to h:8765'\nexit 1\n")
            rc, doc, out, err = cs.run(["h"], ["j.fio"], fio=fake)
            self.assertEqual((rc, doc), (1, None))


if __name__ == "__main__":
    unittest.main()
