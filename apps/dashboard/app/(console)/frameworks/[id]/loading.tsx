export { RouteLoading as default } from '@/components/route-states';
