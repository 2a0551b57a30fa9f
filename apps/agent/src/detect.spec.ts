import { gpusToOffer, withGpuModel } from './detect';

describe("the machine's resources", () => {
  it('offers every GPU found unless the operator named gpus, then that many (never more than found)', () => {
    const found = [{ index: 0 }, { index: 1 }];
    expect(gpusToOffer(undefined, found)).toEqual({ gpus: found });
    expect(gpusToOffer(1, found)).toEqual({ gpus: [{ index: 0 }] });
    expect(gpusToOffer(0, found)).toEqual({ gpus: [] });
    expect(gpusToOffer(3, found)).toEqual({ problem: 'gpus:3 is more than the 2 NVIDIA GPU(s) found on this machine' });
    expect(gpusToOffer(1.5, found)).toEqual({ problem: 'gpus:1.5 must be a whole number of GPUs' });
  });

  it("adds the GPUs' model as the gpu_model attribute, keeping the operator's", () => {
    const h200 = { model: 'NVIDIA H200' };
    expect(withGpuModel({ rack: 'r1' }, [h200, h200])).toEqual({ rack: 'r1', gpu_model: 'NVIDIA H200' });
    expect(withGpuModel({}, [h200, { model: 'NVIDIA A100' }])).toEqual({ gpu_model: 'NVIDIA H200,NVIDIA A100' });
    expect(withGpuModel({ gpu_model: 'mine' }, [h200])).toEqual({ gpu_model: 'mine' });
    expect(withGpuModel({}, [])).toEqual({});
  });
});
