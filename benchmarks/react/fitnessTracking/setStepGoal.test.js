import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './setStepGoal';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('saves a new daily step goal', async () => {
  fetchMock.put('/api/goals/steps', { status: 200, body: { target: 12000 } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('step-goal-input'), { target: { value: '12000' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/save goal/i)); });

  expect(fetchMock.called('/api/goals/steps')).toBe(true);
  expect(JSON.parse(fetchMock.lastOptions('/api/goals/steps').body)).toEqual({ target: 12000 });
  expect(screen.getByText('Daily goal set to 12000 steps')).toBeInTheDocument();
}, 10000);

test('shows an error when the goal cannot be saved', async () => {
  fetchMock.put('/api/goals/steps', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('step-goal-input'), { target: { value: '12000' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/save goal/i)); });

  expect(fetchMock.called('/api/goals/steps')).toBe(true);
  expect(screen.getByText(/failed to save goal/i)).toBeInTheDocument();
}, 10000);
