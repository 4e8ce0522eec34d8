"""
Stability of a selection over query subsamples
==============================================

:class:`rankselect.StabilitySelection` refits a selector on random halves of the queries
and counts how often each feature is selected. On the shipped example the informative
features are selected nearly every time and the noise almost never; their redundant
copies share the remaining selections.
"""

import matplotlib.pyplot as plt

import rankselect as rs
from rankselect.data.datasets import example_truth, load_example
from rankselect.plotting import plot_selection_frequencies

train = load_example("train")
truth = example_truth()
frequencies = {}
for name, selector in [("greedy RankRLS", rs.GreedyRankRLS(n_features_to_select=5)),
                       ("GAS", rs.GAS(5, 0.1))]:
    st = rs.StabilitySelection(selector, n_resamples=20, random_state=0).fit(*train)
    frequencies[name] = st.selection_frequencies_
    print(f"{name}: stability {st.stability_:.3f}, selected at >= 0.6: {st.selected_features_}")
print("informative:", truth.informative)

fig, ax = plt.subplots(figsize=(9, 3.8), layout="constrained")
plot_selection_frequencies(frequencies, ax=ax, threshold=0.6,
                           title="selection frequency over 20 half-samples of the queries")
plt.show()
