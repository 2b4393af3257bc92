# A star import (``from utils import *``) may bind anything: the names code conventionally gives
# torch and NumPy (``torch``, ``nn``, ``np``) are read as those modules, as a reader reads them.
from utils import *

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
weights = torch.zeros(3)  # reveal: tensor {cpu}
layer = nn.Linear(3, 3)  # reveal: module {cpu}
moved = weights.to(device)  # reveal: tensor {device}
values = np.zeros(3)  # reveal: ndarray {cpu} rank=1
