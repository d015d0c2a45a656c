// The part of autocannon's API the benchmarks use (the package ships no types).
declare module "autocannon" {
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    max: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
