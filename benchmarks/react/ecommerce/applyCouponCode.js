import { useState } from 'react';

export default function ApplyCouponCode() {
  const [code, setCode] = useState('');
  const [discount, setDiscount] = useState(null);
  const [error, setError] = useState('');

  const applyCoupon = async () => {
    setError('');
    setDiscount(null);
    try {
      const response = await fetch('/api/coupons/validate', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ code }),
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) {
        setError(data.error || 'Invalid coupon');
        return;
      }
      setDiscount(data.discount);
    } catch (err) {
      setError('Invalid coupon');
    }
  };

  return (
    <div>
      <input
        placeholder="Coupon code"
        value={code}
        onChange={(e) => setCode(e.target.value)}
      />
      <button onClick={applyCoupon}>Apply</button>
      {discount !== null && <p>{`${discount}% off applied`}</p>}
      {error && <p className="error">{error}</p>}
    </div>
  );
}
