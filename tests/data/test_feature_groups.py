"""Feature families as data: FeatureGroups, the cost rule with shared group costs, the CLI's
group file, the published layouts, and the selector base's group parameters."""
import numpy as np
import pytest

from rankselect.data import ExtractionCosts, check_feature_groups, check_group_costs, read_feature_groups
from rankselect.data.datasets import STREAMS, feature_layout
from rankselect.selection._base import GROUP_PARAMETER_CONSTRAINTS, RankingSelector


def test_labels_mapping_and_groups_give_one_form():
    a = check_feature_groups(["b", "t", "b", 7], 4)
    assert a.names == ("b", "t", "7") and a.index.tolist() == [0, 1, 0, 2]
    m = check_feature_groups({"t": [1], "b": [0, 2], 7: [3]}, 4)
    assert m.names == a.names and m.index.tolist() == a.index.tolist()
    assert check_feature_groups(a, 4) is a
    assert a.columns(["7", "b"]).tolist() == [3, 0, 2]
    assert a.groups_of([2, 3, 0]) == [0, 2]
    assert a.as_dict() == {"b": [0, 2], "t": [1], "7": [3]}


@pytest.mark.parametrize("spec, n, match", [
    (["a", "b"], 3, "has 2 labels but X has 3"),
    (np.array([["a", "b"], ["b", "c"]]), 4, r"must be 1-D, .*shape \(2, 2\)"),  # not ravelled (#46)
    ([["a", "b"], ["b", "c"]], 4, r"must be 1-D, .*shape \(2, 2\)"),
    ({"a": [0], "b": [0, 1]}, 2, "column 0 is in two groups"),
    ({"a": [0]}, 2, "leaves column 1 in no group"),
    ({"a": [5]}, 2, "holds column 5"),
    ({"a": []}, 1, "is empty"),
    (check_feature_groups(["a"], 1), 2, "describes 1 features but X has 2"),
])
def test_bad_groups_are_named(spec, n, match):
    with pytest.raises(ValueError, match=match):
        check_feature_groups(spec, n)


@pytest.mark.parametrize("spec", ["abc", 3, [1.5, 2.0], {"a": "01"}])
def test_wrong_types(spec):
    with pytest.raises(TypeError):
        check_feature_groups(spec, 2)


def test_group_costs_and_the_cost_rule():
    g = check_feature_groups(["a", "b", "a", "c"], 4)
    gc = check_group_costs({"a": 10, "c": 5}, g)
    assert gc.tolist() == [10, 0, 5]
    with pytest.raises(ValueError, match="finite and >= 0"):
        check_group_costs([1, -1, 0], g)
    with pytest.raises(ValueError, match="3 groups"):
        check_group_costs([1, 2], g)
    c = ExtractionCosts(np.ones(4), g, gc)
    # the first member pays the group's cost, the others ride along
    assert c.marginal([]).tolist() == [11, 1, 11, 6]
    assert c.marginal([0]).tolist() == [1, 1, 1, 6]
    assert c.total([0, 2]) == 12 and c.total([0, 1, 3]) == 18 and c.total([]) == 0
    assert c.group_total(0) == 12
    assert ExtractionCosts(np.arange(4.0)).total([1, 3]) == 4


def test_read_feature_groups(tmp_path):
    p = tmp_path / "groups.csv"
    p.write_text("feature,group,cost\n# streams\n1,body,2.5\n2,title,\n3,body,2.5\n4,title,1\n")
    g, costs = read_feature_groups(p, 4)
    assert g.names == ("body", "title") and g.index.tolist() == [0, 1, 0, 1]
    assert costs.tolist() == [2.5, 1.0]
    p.write_text("1,a\n2,b\n")
    assert read_feature_groups(p, 2)[1] is None
    for text, match in [("1,a\n", "feature 2 has no group"), ("1,a\n3,b\n", "line 2: feature 3 is out of range"),
                        ("1,a,1\n2,a,2\n", "line 2: group 'a' has cost 2.0 here"),
                        ("1,a,inf\n2,a\n", "line 1: .*finite"), ("x,a\n2,b\n", "line 1: the feature number"),
                        ("1,a\n1,b\n", "line 2: feature 1 is given a group twice")]:
        p.write_text(text)
        with pytest.raises(ValueError, match=match):
            read_feature_groups(p, 2)


def test_published_layouts():
    s = feature_layout("letor4", by="stream")
    assert s.n_features == 46 and s.names == (*STREAMS, "document")
    assert s.members(s.group_id("document")).tolist() == list(range(40, 46))
    assert s.feature_names[0] == "TF (body)" and s.feature_names[40] == "PageRank"
    m = feature_layout("MQ2008", by="measure")
    assert m.n_groups == 8 + 6 and m.members(m.group_id("BM25")).tolist() == [20, 21, 22, 23, 24]
    w = feature_layout("mslr-web30k", by="stream")
    assert w.n_features == 136 and [len(w.members(g)) for g in range(6)] == [25] * 5 + [11]
    wm = feature_layout("mslr", by="measure")
    assert wm.n_groups == 25 + 11 and wm.members(wm.group_id("BM25")).tolist() == [105, 106, 107, 108, 109]
    assert w.feature_names[129] == "PageRank" and w.feature_names[135] == "url dwell time"
    with pytest.raises(ValueError, match="unknown layout"):
        feature_layout("yahoo")
    with pytest.raises(ValueError, match="by must be"):
        feature_layout("letor4", by="column")


def test_ohsumed_layouts():
    o = feature_layout("ohsumed", by="stream")  # LETOR 3.0: 15 measures x 3 fields, field slowest
    assert o.n_features == 45 and o.names == ("title", "abstract", "title+abstract")
    assert o.members(1).tolist() == list(range(15, 30)) and o.feature_names[40] == "BM25 (title+abstract)"
    m = feature_layout("letor3-ohsumed", by="measure")
    assert m.n_groups == 15 and m.members(m.group_id("BM25")).tolist() == [10, 25, 40]
    o2 = feature_layout("ohsumed-letor2", by="stream")  # 10 measures on 2 fields, 5 scores
    assert o2.n_features == 25 and o2.names == ("title", "abstract", "document")
    assert o2.members(2).tolist() == list(range(20, 25)) and o2.feature_names[20] == "BM25"
    m2 = feature_layout("ohsumed-letor2", by="measure")
    assert m2.n_groups == 15 and m2.members(0).tolist() == [0, 10]
    assert m2.members(m2.group_id("LMIR.ABS")).tolist() == [24]


def test_the_ohsumed_letor2_layout_matches_the_data():
    """What the layout says is in the file: log(BM25) is the log of BM25, the IDF-only measures
    are query-level (constant within every query), the term counts are not, and the second
    field is not title+abstract (its term count is below the first field's on some rows)."""
    import rankselect as rs
    from conftest import shared_path
    from rankselect.data import constant_within_queries
    d = rs.load_letor(shared_path("OHSUMED-LETOR2", "S1.txt"), n_features=25)
    g = feature_layout("ohsumed-letor2", by="measure")
    bm25, log_bm25 = (d.X[:, g.members(g.group_id(n))[0]] for n in ("BM25", "log(BM25)"))
    assert np.allclose(np.log(bm25), log_bm25, atol=1e-4)
    constant = constant_within_queries(d.X, d.qid)
    query_level = [n for t, n in enumerate(g.names) if constant[g.members(t)].all()]
    assert query_level == ["sum log(|C|/df)", "sum log(log(|C|/df))", "sum log(|C|/tf(C) + 1)"]
    tf = d.X[:, g.members(g.group_id("sum tf"))]
    assert (tf[:, 1] < tf[:, 0]).any() and (tf[:, 1] > tf[:, 0]).any()


def test_a_layout_of_any_shape():
    from rankselect.data.datasets import LAYOUTS, Layout
    odd = Layout((("BM25", "title"), ("BM25", "body"), ("TF", "title"), ("PageRank", None)))
    assert odd.streams == ("title", "body") and odd.groups("stream").names == ("title", "body", "document")
    assert odd.groups("measure").as_dict() == {"BM25": [0, 1], "TF": [2], "PageRank": [3]}
    assert all(isinstance(v, Layout) for v in LAYOUTS.values())


class _Toy(RankingSelector):
    """A selector taking the group parameters, for the base's checks."""

    _parameter_constraints = {**GROUP_PARAMETER_CONSTRAINTS}

    def __init__(self, n_features_to_select=1, feature_costs=None, budget=None, feature_groups=None,
                 group_costs=None, select_groups=True):
        self.n_features_to_select = n_features_to_select
        self.feature_costs = feature_costs
        self.budget = budget
        self.feature_groups = feature_groups
        self.group_costs = group_costs
        self.select_groups = select_groups

    def fit(self, X, y, qid=None):  # not called: the checks below are the base's
        raise NotImplementedError


def test_base_group_parameters():
    from rankselect.selection import FitPlan
    t = _Toy(n_features_to_select=2, feature_groups=["a", "a", "b"], group_costs={"a": 3})
    plan = FitPlan.of(t, None, 3)
    assert plan.by_group and plan.n_to_select(t.n_features_to_select) == 2
    assert plan.budget is None and plan.costs.feature_costs.tolist() == [0, 0, 0]  # extraction only
    assert plan.costs.total([0, 1, 2]) == 3
    t.selected_features_ = np.array([2, 0, 1])
    t.n_features_in_ = 3
    t._set_groups(plan)
    assert t.selected_groups_.tolist() == ["b", "a"] and t.get_support().all()
    with pytest.raises(ValueError, match=r"n_groups = 2\], got 3"):
        plan.n_to_select(3)
    with pytest.raises(ValueError, match="group_costs needs feature_groups"):
        FitPlan.of(_Toy(group_costs=[1.0]), None, 3)
    # the budget admits the cheapest whole group, or the cheapest feature with its group's cost
    with pytest.raises(ValueError, match="cheapest group's cost"):
        FitPlan.of(_Toy(feature_groups=["a", "a", "b"], group_costs=[3, 5], feature_costs=[1, 1, 1], budget=4.5),
                   None, 3)
    assert FitPlan.of(_Toy(feature_groups=["a", "a", "b"], group_costs=[3, 5], feature_costs=[1, 1, 1], budget=4.5,
                           select_groups=False), None, 3).budget == 4.5
    bare = FitPlan.of(_Toy(), None, 3)
    assert not bare.priced and bare.budget is None and bare.step_costs() is None
