class Detector:
    def __init__(self, weights, device="cuda"):  # alone: TDV001
        self.device = device
        self.net = weights.to(device)
