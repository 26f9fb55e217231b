import unittest

from flagcheck_analysis.results import matrix


class TestMatrix(unittest.TestCase):
    def test_default_numjobs(self):
        self.assertEqual(matrix.default_numjobs(1), [1])
        self.assertEqual(matrix.default_numjobs(2), [1, 2])
        self.assertEqual(matrix.default_numjobs(6), [1, 2, 4, 6])
        self.assertEqual(matrix.default_numjobs(16), [1, 2, 4, 8, 16])

    def test_modes_interleaved(self):
        runs = matrix.build(["s1"], ["always", "test_first"], [1, 4], 3)
        self.assertEqual(len(runs), 2 * 2 * 3)
        # ABBA: reversed in even repeats
        self.assertEqual([r.mode for r in runs],
                         ["always", "test_first", "test_first", "always",
                          "always", "test_first"] * 2)
        self.assertEqual([(r.numjobs, r.repeat) for r in runs[:6]],
                         [(1, 1), (1, 1), (1, 2), (1, 2), (1, 3), (1, 3)])
        self.assertEqual(runs[6], matrix.Run("s1", "always", 4, 1))

    def test_name_round_trip(self):
        run = matrix.Run("s1_filemap_check", "test_first", 16, 5)
        name = matrix.run_name(run) + ".json"
        self.assertEqual(name, "s1_filemap_check_test_first_nj16_r5.json")
        self.assertEqual(matrix.parse_name("/x/" + name), run)
        self.assertIsNone(matrix.parse_name("fio-output.json"))
        self.assertEqual(matrix.stats_path_for_json("/x/" + name),
                         "/x/s1_filemap_check_test_first_nj16_r5"
                         ".flagcheck.jsonl")


if __name__ == "__main__":
    unittest.main()
