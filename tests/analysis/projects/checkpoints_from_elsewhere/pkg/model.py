import torch.nn as nn


class Matcher(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 4)
