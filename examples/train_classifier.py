"""A small training script with the device bugs people hit most (lint it: flake8 --select TDV examples/)."""

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda")  # breaks on CPU-only CI and on Apple Silicon

features = torch.randn(256, 20)
labels = torch.randint(0, 3, (256,))
loader = DataLoader(TensorDataset(features, labels), batch_size=32, shuffle=True)

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
model.to(device)  # fine: nn.Module.to() moves the module in place
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(3):
    for inputs, targets in loader:
        inputs.to(device)  # the moved copy is thrown away: inputs stays on the CPU
        targets = targets.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()

with torch.no_grad():
    logits = model(features.to(device))
    predictions = logits.argmax(dim=1).numpy()  # NumPy cannot read GPU memory
    print("accuracy", float(np.mean(predictions == labels.numpy())))
