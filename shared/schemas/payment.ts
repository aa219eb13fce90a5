// PLACEHOLDER being replaced by the schemas work in progress.
import { shape } from './common';
export const SaveRequestPaymentT = shape('SaveRequestPaymentT', {});
