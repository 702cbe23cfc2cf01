import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './monthlyBudget';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('shows how much of the monthly budget remains', async () => {
  fetchMock.get('/api/budget/current', { month: '2025-01', limit: 2000, spent: 1450 });

  await act(async () => { render(<App />); });

  expect(fetchMock.called('/api/budget/current')).toBe(true);
  expect(screen.getByText('Spent: $1450 of $2000')).toBeInTheDocument();
  expect(screen.getByTestId('remaining')).toHaveTextContent('Remaining: $550');
}, 10000);

test('shows that the budget is unavailable when loading fails', async () => {
  fetchMock.get('/api/budget/current', 500);

  await act(async () => { render(<App />); });

  expect(fetchMock.called('/api/budget/current')).toBe(true);
  expect(screen.getByText(/budget unavailable/i)).toBeInTheDocument();
  expect(screen.queryByTestId('remaining')).not.toBeInTheDocument();
}, 10000);
