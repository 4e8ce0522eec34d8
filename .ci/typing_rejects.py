"""Type-checked by the lint gate (`.ci/run`): mypy must reject exactly the two calls marked
`type: ignore[arg-type]` (with `warn_unused_ignores`, an ignore that suppresses nothing is an
error, so accepting either call fails the gate) and accept the others."""
import numpy as np

import rankselect

rankselect.SparseRankSVM(C="one")  # type: ignore[arg-type]
rankselect.GreedyRankRLS(n_features_to_select="3")  # type: ignore[arg-type]

rankselect.SparseRankSVM(C=1.0, penalty="mcp")
rankselect.SparseRankSVM(C=1.0, penalty=rankselect.models.penalties.MCP(gamma=3.0))
rankselect.GreedyRankRLS(n_features_to_select=3, min_improvement=1e-3, convention="letor", feature_costs=np.ones(5))
