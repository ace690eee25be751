/**
 * The lab's own workload, as Kubernetes YAML: the `orders` app of the course's sidecar lab
 * (shared/seeds, chapters 000 and 003), version v1, serving HTTP on 8101 (the port the lab's
 * `inbound|8101||` cluster points at, src/resources/lab.ts). `mock-istiod inject` feeds it
 * to the real `istioctl kube-inject` when no file is given.
 */
export const LAB_DEPLOYMENT_YAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders-v1
  namespace: default
  labels:
    app: orders
    version: v1
spec:
  replicas: 1
  selector:
    matchLabels:
      app: orders
      version: v1
  template:
    metadata:
      labels:
        app: orders
        version: v1
    spec:
      serviceAccountName: default
      containers:
        - name: orders
          image: docker.io/library/node:20-alpine
          ports:
            - name: http
              containerPort: 8101
`;
