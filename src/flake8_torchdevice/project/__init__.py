"""project/: facts about the whole project between the front ends and the analysis: layout, index, beliefs, cache."""
