"""The record's benchmarks run end to end in miniature (no timing asserted)."""

from __future__ import annotations

from benchmarks import record


def test_the_record_benchmarks_report_every_figure_on_both_stores() -> None:
    ingest = record.bench_ingest(1, tables=2, per_table=100)
    assert ingest["sqlite recorder msg/s"] > 0 and ingest["postgresql ratio"] > 0
    queries = record.bench_queries(1, n=50, samples=20)
    assert all(queries[f"{s} player page p95 ms"] > 0 for s in ("sqlite", "postgresql"))
    size = record.bench_size(1, matches_wanted=3)
    assert size["matches"] >= 2 and size["sqlite bytes per match"] > 0
