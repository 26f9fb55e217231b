from flagcheck_analysis.inputs import matrix


class TestMatrix:
    def test_default_numjobs(self):
        assert matrix.default_numjobs(1) == [1]
        assert matrix.default_numjobs(2) == [1, 2]
        assert matrix.default_numjobs(6) == [1, 2, 4, 6]
        assert matrix.default_numjobs(16) == [1, 2, 4, 8, 16]

    def test_modes_interleaved(self):
        runs = matrix.build(["s1"], ["always", "test_first"], [1, 4], 3)
        assert len(runs) == 2 * 2 * 3
        # ABBA: reversed in even repeats
        assert [r.variant for r in runs] == \
            ["always", "test_first", "test_first", "always",
             "always", "test_first"] * 2
        assert [(r.numjobs, r.repeat) for r in runs[:6]] == \
            [(1, 1), (1, 1), (1, 2), (1, 2), (1, 3), (1, 3)]
        assert runs[6] == matrix.Run("s1", "always", 4, 1)

    def test_name_round_trip(self):
        run = matrix.Run("s1_filemap_check", "test_first", 16, 5)
        name = matrix.run_name(run) + ".json"
        assert name == "s1_filemap_check_test_first_nj16_r5.json"
        assert matrix.parse_name("/x/" + name) == run
        assert matrix.parse_name("fio-output.json") is None
        assert matrix.counters_path_for_json("/x/" + name) == \
            ("/x/s1_filemap_check_test_first_nj16_r5"
             ".flagcheck.jsonl")
