"""The fleet recipe (python/README): 64 captures (16 hosts x 4, fleet.py)
decoded on a Dask LocalCluster of 2 worker processes, each capture's
aggregations folded with +, must print byte for byte what
dtconsume --merge-aggs prints for the same files.  Every capture's run
prints only its closing newline (the script is quiet and only
aggregates), so that output is 64 newlines, then the merged
aggregations."""

import functools
import operator
import os
import pickle
import unittest

import dtconsume
import fleet
import util

SKIP = util.has_tool("dask", "distributed")


class Fleet(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.paths = fleet.make(os.path.join(util.workdir(), "fleet"))
        p = util.run([util.DTCONSUME, "--merge-aggs", *cls.paths])
        assert p.returncode == 0, p.stderr
        cls.want = p.stdout.decode("utf-8")
        n = len(cls.paths)
        assert cls.want.startswith("\n" * n) and cls.want[n] != "\n"
        cls.want_aggs = cls.want[n:]

    def test_sixty_four_captures(self):
        self.assertEqual(len(self.paths), fleet.HOSTS * fleet.PER_HOST)
        self.assertEqual(len(self.paths), 64)

    def test_merge_in_process(self):
        self.assertEqual(dtconsume.merge_aggregations(self.paths).text(),
                         self.want_aggs)
        folded = functools.reduce(operator.add, map(dtconsume.aggregations,
                                                    self.paths))
        self.assertEqual(folded.text(), self.want_aggs)

    def test_only_aggregations_cross(self):
        """What a worker sends is the kept aggregations: the pickle holds
        the bytes of a small capture of aggregations, not the input."""
        a = dtconsume.aggregations(self.paths[0])
        blob = pickle.dumps(a)
        self.assertLess(len(blob), len(a.data) + 200)
        self.assertEqual(pickle.loads(blob).text(), a.text())

    def test_merge_of_merged(self):
        """Aggregations are sources of merge_aggregations too."""
        parts = [dtconsume.merge_aggregations(self.paths[i:i + 16])
                 for i in range(0, 64, 16)]
        self.assertEqual(dtconsume.merge_aggregations(parts).text(),
                         self.want_aggs)

    @unittest.skipIf(SKIP, SKIP)
    def test_dask_local_cluster(self):
        import warnings
        import dask.bag as db
        from dask.distributed import Client, LocalCluster

        # tornado's own deprecation notes are not this test's business
        warnings.filterwarnings("ignore", category=DeprecationWarning)

        with LocalCluster(n_workers=2, threads_per_worker=1,
                          processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            self.assertEqual(len(client.scheduler_info()["workers"]), 2)
            merged = (db.from_sequence(self.paths, npartitions=8)
                      .map(dtconsume.aggregations)
                      .fold(operator.add)
                      .compute())
            # one merge per partition, one of their results
            reduced = (db.from_sequence(self.paths, npartitions=8)
                       .reduction(dtconsume.merge_aggregations,
                                  dtconsume.merge_aggregations)
                       .compute())
        self.assertIsInstance(merged, dtconsume.Aggregations)
        self.assertEqual(merged.text(), self.want_aggs)
        self.assertEqual(reduced.text(), self.want_aggs)


if __name__ == "__main__":
    unittest.main()
